#![doc = include_str!("../docs/introduction.md")]
//!
//! # The guide
//!
//! - [`guide::providers`]: providers, values and the `#[provider]` macro
//! - [`guide::lifecycle`]: lazy builds, `start`, `close` and `dispose`
//! - [`guide::explain`]: seeing what a key builds
//! - [`guide::testing`]: overrides
//! - [`guide::errors`]: every build error code

#[doc(inline)]
pub use green_tea_core::*;

/// Declares a provider: an app-scoped part of the graph, built once.
///
/// On a `fn` or `async fn`, the parameters are the needs in order (`Arc<T>` or `&T`) and the
/// return value is what it provides (`T`, or `Result<T, E>` with `E: Into<BoxError>`; a tuple
/// when it provides several keys). The fn becomes a unit struct of the same name that
/// implements [`Provider`]; the original fn stays callable as `name::call(...)`.
///
/// ```
/// use green_tea::prelude::*;
///
/// #[provider(provides = "billingUrl")]
/// fn billing_url() -> String {
///     "http://127.0.0.1:3001".to_owned()
/// }
///
/// #[provider(provides = "billing", needs = ["billingUrl"])]
/// fn billing(url: &String) -> usize {
///     url.len()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder().provider(billing_url).provider(billing).build().unwrap();
/// assert_eq!(*container.get::<usize>("billing").await.unwrap(), 21);
/// # container.close().await.unwrap(); }
/// ```
///
/// On an `impl` block of a struct that holds provider state, `provide(&self, needs...)` builds
/// the values and an optional `async fn dispose(&self, provided...)` releases them. The struct
/// is made with its `fn new()` if the block has one, else with `Default`. See the
/// [providers guide](guide::providers) for every form.
pub use green_tea_macros::provider;

/// The names an application needs most, in one import: `use green_tea::prelude::*;`.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{
        BoxError, BuildError, CloseError, Container, Provided, ProvideError, Provider,
        ProviderDescriptor, Needs, provider,
    };
    #[doc(no_inline)]
    pub use std::sync::Arc;
}

/// The guide, one page per topic; every Rust block in it is a doctest.
pub mod guide {
    #[doc = include_str!("../docs/providers.md")]
    pub mod providers {}
    #[doc = include_str!("../docs/lifecycle.md")]
    pub mod lifecycle {}
    #[doc = include_str!("../docs/explain.md")]
    pub mod explain {}
    #[doc = include_str!("../docs/testing.md")]
    pub mod testing {}
    #[doc = include_str!("../docs/errors/README.md")]
    pub mod errors {
        #[doc = include_str!("../docs/errors/GT0001.md")]
        pub mod gt0001 {}
        #[doc = include_str!("../docs/errors/GT0002.md")]
        pub mod gt0002 {}
        #[doc = include_str!("../docs/errors/GT0003.md")]
        pub mod gt0003 {}
        #[doc = include_str!("../docs/errors/GT0004.md")]
        pub mod gt0004 {}
        #[doc = include_str!("../docs/errors/GT0005.md")]
        pub mod gt0005 {}
        #[doc = include_str!("../docs/errors/GT0006.md")]
        pub mod gt0006 {}
    }
}

/// What the macros expand to. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use green_tea_core::__private::inventory;
    pub use green_tea_core::{
        BoxError, Location, Needs, Provided, Provider, ProviderDescriptor, Registration,
        async_trait,
    };

    /// What a provider fn may return: the value itself, or a `Result` of it.
    pub fn provide_ok<T>(value: T) -> Result<T, BoxError> {
        Ok(value)
    }

    /// Turns a fallible provider's error into a `BoxError`.
    pub fn provide_result<T, E: Into<BoxError>>(result: Result<T, E>) -> Result<T, BoxError> {
        result.map_err(Into::into)
    }

    /// What a `dispose` may return: `()` or `Result<(), E>`.
    pub trait DisposeOutput {
        /// As a `Result`.
        fn into_dispose_result(self) -> Result<(), BoxError>;
    }

    impl DisposeOutput for () {
        fn into_dispose_result(self) -> Result<(), BoxError> {
            Ok(())
        }
    }

    impl<E: Into<BoxError>> DisposeOutput for Result<(), E> {
        fn into_dispose_result(self) -> Result<(), BoxError> {
            self.map_err(Into::into)
        }
    }

    /// Fails to compile, pointing at the type, unless a provided value can live in the graph.
    pub fn assert_value<T: Send + Sync + 'static>() {}

    /// Fails to compile unless the provider struct can be shared across tasks.
    pub fn assert_provider_state<T: Send + Sync + 'static>() {}
}
