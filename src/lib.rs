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

/// The HTTP layer: [`App`](http::App), routes, steps, `explain(path)`, serving, `TestClient`.
pub mod http {
    #[doc(inline)]
    pub use green_tea_http::*;
    #[doc(no_inline)]
    pub use axum_core::response::{IntoResponse, Response};
    #[doc(no_inline)]
    pub use ::http::{Method, StatusCode, request::Parts};
}

#[doc(inline)]
pub use green_tea_http::{App, Error, HttpError, Json, TestClient};

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
    pub use crate::http::{
        App, HttpError, IntoResponse, Json, Parts, Path, Query, RequestContext, Route, StatusCode,
        TestClient,
    };
    #[doc(no_inline)]
    pub use crate::{
        BoxError, BuildError, CloseError, Container, Needs, ProvideError, Provided, Provider,
        ProviderDescriptor, provider,
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
        #[doc = include_str!("../docs/errors/GT0007.md")]
        pub mod gt0007 {}
        #[doc = include_str!("../docs/errors/GT0008.md")]
        pub mod gt0008 {}
    }
}

/// What the macros expand to. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use green_tea_core::__private::inventory;
    pub use green_tea_core::{
        BoxError, Location, NeedError, Needs, Provided, Provider, ProviderDescriptor,
        Registration, async_trait,
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

    // One mistake, one error. `#[provider]` reports a provided or needed type that is not
    // `Send + Sync + 'static` once, at the type, with `check`; everywhere else it reaches the
    // graph through a `TypeProbe`, whose methods resolve by autoref specialization to the real
    // operations when the type qualifies and to never-run stand-ins when it does not, so the
    // bad type does not also fail every line that uses it. Expansions call the probe as
    // `(&&TypeProbe::<T>::new()).op(..)` (`&&&` for `check`) with these traits in scope.

    use std::future::Future;
    use std::marker::PhantomData;
    use std::pin::Pin;
    use std::sync::Arc;

    /// The future a hand-written `Provider` method returns (what `async_trait` would write).
    pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

    /// Stands for the type `T` in an expansion; its methods come from the traits below.
    pub struct TypeProbe<T: ?Sized>(PhantomData<fn() -> PhantomData<T>>);

    impl<T: ?Sized> TypeProbe<T> {
        /// The probe for `T`.
        #[allow(clippy::new_without_default)]
        pub const fn new() -> Self {
            TypeProbe(PhantomData)
        }
    }

    /// `check` for a good graph value: nothing to report.
    pub trait ValueIsSendSync {
        /// Compiles.
        fn check(&self) {}
    }

    impl<T: Send + Sync + 'static> ValueIsSendSync for &&TypeProbe<T> {}

    /// `check` for a value that is `Sync` but not `Send`: reports exactly that.
    pub trait ValueIsSync<T: ?Sized> {
        /// Fails to compile, pointing at the type: it is not `Send`.
        fn check(&self)
        where
            T: Send,
        {
        }
    }

    impl<T: Sync + 'static> ValueIsSync<T> for &TypeProbe<T> {}

    /// `check` for any other value: reports that it is not `Sync` (or not `'static`).
    pub trait ValueIsAny<T: ?Sized> {
        /// Fails to compile, pointing at the type: it is not `Sync + 'static`.
        fn check(&self)
        where
            T: Sync + 'static,
        {
        }
    }

    impl<T: ?Sized> ValueIsAny<T> for TypeProbe<T> {}

    /// The graph operations on a value of type `T: Send + Sync + 'static`.
    pub trait GraphValue<T> {
        /// `descriptor.provides::<T>(key)`.
        fn provides(&self, descriptor: ProviderDescriptor, key: &'static str) -> ProviderDescriptor;
        /// `descriptor.needs::<T>(key)`.
        fn needs(&self, descriptor: ProviderDescriptor, key: &'static str) -> ProviderDescriptor;
        /// `needs.get::<T>(index)`.
        fn need(&self, needs: &Needs, index: usize) -> Result<Arc<T>, NeedError>;
        /// `provided.with(value)`.
        fn with(&self, provided: Provided, value: T) -> Provided;
        /// `provided.get::<T>(index)`.
        fn provided(&self, provided: &Provided, index: usize) -> Option<Arc<T>>;
    }

    impl<T: Send + Sync + 'static> GraphValue<T> for &TypeProbe<T> {
        fn provides(&self, descriptor: ProviderDescriptor, key: &'static str) -> ProviderDescriptor {
            descriptor.provides::<T>(key)
        }
        fn needs(&self, descriptor: ProviderDescriptor, key: &'static str) -> ProviderDescriptor {
            descriptor.needs::<T>(key)
        }
        fn need(&self, needs: &Needs, index: usize) -> Result<Arc<T>, NeedError> {
            needs.get::<T>(index)
        }
        fn with(&self, provided: Provided, value: T) -> Provided {
            provided.with(value)
        }
        fn provided(&self, provided: &Provided, index: usize) -> Option<Arc<T>> {
            provided.get::<T>(index)
        }
    }

    /// Stand-ins for a value type that `check` already reported; they never run, because the
    /// crate does not compile.
    pub trait NotAGraphValue<T> {
        /// Never runs.
        fn provides(&self, descriptor: ProviderDescriptor, key: &'static str) -> ProviderDescriptor;
        /// Never runs.
        fn needs(&self, descriptor: ProviderDescriptor, key: &'static str) -> ProviderDescriptor;
        /// Never runs.
        fn need(&self, needs: &Needs, index: usize) -> Result<Arc<T>, NeedError>;
        /// Never runs.
        fn with(&self, provided: Provided, value: T) -> Provided;
        /// Never runs.
        fn provided(&self, provided: &Provided, index: usize) -> Option<Arc<T>>;
    }

    const REPORTED: &str = "a type that is not `Send + Sync + 'static` fails to compile";

    impl<T> NotAGraphValue<T> for TypeProbe<T> {
        fn provides(&self, _: ProviderDescriptor, _: &'static str) -> ProviderDescriptor {
            unreachable!("{REPORTED}")
        }
        fn needs(&self, _: ProviderDescriptor, _: &'static str) -> ProviderDescriptor {
            unreachable!("{REPORTED}")
        }
        fn need(&self, _: &Needs, _: usize) -> Result<Arc<T>, NeedError> {
            unreachable!("{REPORTED}")
        }
        fn with(&self, _: Provided, _: T) -> Provided {
            unreachable!("{REPORTED}")
        }
        fn provided(&self, _: &Provided, _: usize) -> Option<Arc<T>> {
            unreachable!("{REPORTED}")
        }
    }

    /// Boxes a provider method's future, for provider state `S: Send + Sync + 'static`.
    pub trait SharedState {
        /// The future, boxed as `Provider` returns it.
        fn boxed<'a, F: Future + Send + 'a>(&self, future: F) -> BoxFuture<'a, F::Output>;
    }

    impl<S: Send + Sync + 'static> SharedState for &TypeProbe<S> {
        fn boxed<'a, F: Future + Send + 'a>(&self, future: F) -> BoxFuture<'a, F::Output> {
            Box::pin(future)
        }
    }

    /// The stand-in for provider state that is not `Send + Sync`: the `Provider` impl itself
    /// reports that, so this never runs.
    pub trait UnsharedState {
        /// Never runs.
        fn boxed<'a, F: Future + 'a>(&self, future: F) -> BoxFuture<'a, F::Output>;
    }

    impl<S> UnsharedState for TypeProbe<S> {
        fn boxed<'a, F: Future + 'a>(&self, _: F) -> BoxFuture<'a, F::Output> {
            unreachable!("provider state that is not `Send + Sync` fails to compile")
        }
    }
}
