//! A public route block in a module under strict lints: plain methods and other attributes
//! stay, method attributes may be written as paths, and `routes()` is documented.
#![forbid(unsafe_code)]
#![deny(missing_docs, warnings)]

/// The API.
pub mod api {
    use green_tea::prelude::*;

    /// Health checks.
    pub struct Health;

    #[route("/health")]
    impl Health {
        /// Liveness.
        #[green_tea::get("/live")]
        #[inline]
        pub async fn live() -> &'static str {
            "ok"
        }

        #[get("/ready")]
        fn ready(#[needs("ready")] ready: &bool) -> StatusCode {
            if *ready {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }

        #[allow(dead_code)]
        fn not_a_route() -> u8 {
            1
        }
    }
}

/// A block with no routes at all.
pub struct Empty;

#[green_tea::route("/")]
impl Empty {}

#[test]
fn compiles_and_runs() {
    assert_eq!(api::Health::routes().len(), 2);
    assert!(Empty::routes().is_empty());
}
