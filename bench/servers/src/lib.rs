//! What the four benchmark servers share: the order, the fake billing upstream, the settings.
//!
//! Each framework's app is built in one module here (behind that framework's feature), so that
//! its server (`X-server`, over loopback) and its in-process driver (`X-inproc`, no socket) serve
//! exactly the same route. green-tea has two: the macro form users write (`green_tea_app`) and
//! the same app wired by hand (`green_tea_wired_app`), and the macro form's app with a request id
//! that finishes (`green_tea_finish_app`, feature `green-tea-finish`). The shop's write route on
//! SQLite is served by green-tea with the database recipe (`green_tea_sqlite_app`) and by axum +
//! sqlx by hand (`axum_sqlite_app`), sharing `sqlite`'s table and settings.

use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use http_body_util::Full;
use serde::{Deserialize, Serialize};

#[cfg(feature = "actix")]
pub mod actix_app;
#[cfg(feature = "axum")]
pub mod axum_app;
#[cfg(feature = "axum-sqlx")]
pub mod axum_sqlite_app;
#[cfg(feature = "green-tea")]
pub mod green_tea_app;
#[cfg(feature = "green-tea-finish")]
pub mod green_tea_finish_app;
#[cfg(feature = "green-tea-sqlx")]
pub mod green_tea_sqlite_app;
#[cfg(feature = "green-tea")]
pub mod green_tea_wired_app;
#[cfg(feature = "hyper")]
pub mod hyper_app;
#[cfg(any(feature = "green-tea-sqlx", feature = "axum-sqlx"))]
pub mod sqlite;

/// metrics-exporter-prometheus's recorder, buckets set as an application sets them, installed
/// as the global recorder (before the app is built, as docs/observability.md says); the
/// handle renders what it recorded.
#[cfg(feature = "green-tea-metrics")]
pub fn install_prometheus() -> metrics_exporter_prometheus::PrometheusHandle {
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new()
        .set_buckets(&[
            0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ])
        .expect("buckets")
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).expect("the only recorder");
    handle
}

/// The body `loadgen` and the in-process drivers send to `POST /orders`.
pub const ORDER_JSON: &[u8] = br#"{"userId":"u1","amount":5}"#;

/// The body of `POST /orders`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub user_id: String,
    pub amount: u64,
}

/// The response body.
#[derive(Debug, Serialize)]
pub struct Created {
    pub ok: bool,
}

/// The in-memory fake billing API: counts charges.
#[derive(Debug, Default)]
pub struct BillingApi {
    charges: AtomicU64,
}

impl BillingApi {
    pub fn charge(&self, order: &Order) -> u64 {
        std::hint::black_box((&order.user_id, order.amount));
        self.charges.fetch_add(1, Ordering::Relaxed)
    }
}

/// What handlers use: billing wrapped (as the reference guide's `billing` wraps `billingApi`).
#[derive(Debug)]
pub struct Billing {
    pub api: std::sync::Arc<BillingApi>,
}

impl Billing {
    pub fn charge(&self, order: &Order) -> u64 {
        self.api.charge(order)
    }
}

/// `PORT` (default 3000) and `WORKERS` (default 1).
pub fn settings() -> (u16, usize) {
    let port = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(3000);
    let workers = std::env::var("WORKERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(1);
    (port, workers)
}

/// A multi-threaded tokio runtime with `workers` threads.
pub fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The step's value: the request id header, or "-".
pub fn request_id(headers: &http::HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-")
        .to_owned()
}

/// A current-thread tokio runtime: the in-process drivers answer one request after another.
pub fn current_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// N, the in-process drivers' first argument: how many requests to answer.
pub fn request_count() -> u64 {
    std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("usage: X-inproc N")
}

/// Request `i` of an in-process run, as `loadgen` sends it over the socket: `POST /orders`, a
/// JSON content type, the request id `i`, the order. The static parts are `from_static`, so that
/// building the request (which the in-process figures include) costs as little as it can: the
/// header map and the id are its only allocations.
pub fn order_request(i: u64) -> http::Request<Full<Bytes>> {
    use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
    http::Request::post(http::Uri::from_static("/orders"))
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .header(HeaderName::from_static("x-request-id"), i)
        .body(Full::new(Bytes::from_static(ORDER_JSON)))
        .expect("a request")
}

/// The tower in-process run (green-tea-inproc, green-tea-wired-inproc, axum-inproc): `count`
/// requests answered one after another through `service` with `ServiceExt::oneshot` (each body
/// read to its end), panicking, and so exiting non-zero, on any answer that is not 200.
#[cfg(any(feature = "green-tea", feature = "axum"))]
pub async fn answer_in_process<S, B>(mut service: S, count: u64)
where
    S: tower::Service<
            http::Request<Full<Bytes>>,
            Response = http::Response<B>,
            Error = std::convert::Infallible,
        >,
    B: hyper::body::Body,
    B::Error: std::fmt::Debug,
{
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    for i in 0..count {
        let response = (&mut service)
            .oneshot(order_request(i))
            .await
            .unwrap_or_else(|never| match never {});
        let status = response.status();
        response.into_body().collect().await.expect("a body");
        assert_eq!(status, 200, "request {i}");
    }
}
