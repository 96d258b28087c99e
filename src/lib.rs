#![doc = include_str!("../docs/introduction.md")]
//!
//! # The guide
//!
//! - [`guide::getting_started`]: a service in twenty lines
//! - [`guide::providers`]: providers, values and the `#[provider]` macro
//! - [`guide::steps`]: request-scoped steps and guards
//! - [`guide::routes`]: routes, extractors, bad input, interop
//! - [`guide::explain`]: seeing what a key or a route builds
//! - [`guide::lifecycle`]: lazy builds, `start`, serving, draining, `close` and `dispose`
//! - [`guide::testing`]: overrides and `TestClient`
//! - [`guide::recipes::circuit_breakers`]: the circuit-breaker recipe
//! - [`guide::errors`]: every build error code

#[doc(inline)]
pub use green_tea_core::*;

/// The HTTP layer: [`App`], routes, steps, `explain(path)`, serving, `TestClient`.
pub mod http {
    #[doc(no_inline)]
    pub use ::http::{HeaderMap, Method, Request, StatusCode, Uri, request::Parts};
    #[doc(no_inline)]
    pub use axum_core::extract::FromRequestParts;
    #[doc(no_inline)]
    pub use axum_core::response::{IntoResponse, Response};
    #[doc(inline)]
    pub use green_tea_http::*;
}

#[doc(inline)]
pub use green_tea_http::{App, Error, HttpError, Json, TestClient};

/// Declares a provider: an app-scoped part of the graph, built once.
///
/// On a `fn` or `async fn`, the parameters are the needs in order (`Arc<T>` or `&T`) and the
/// return value is what it provides (`T`, or `Result<T, E>` with `E: Into<BoxError>`; a tuple
/// when it provides several keys). The fn stays as written and callable; an empty braced
/// struct of the same name implements [`Provider`]: register it with `.provider(name {})`.
/// It lives only in the type namespace, so bindings named like the fn stay bindings.
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
/// fn billing(billing_url: &String) -> usize {
///     billing_url.len()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .provider(billing_url {})
///     .provider(billing {})
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<usize>("billing").await.unwrap(), 21);
/// assert_eq!(billing(&billing_url()), 21);
/// # container.close().await.unwrap(); }
/// ```
///
/// On an `impl` block of a struct that holds provider state, `provide(&self, needs...)` builds
/// the values and an optional `async fn dispose(&self, provided...)` releases them. The struct
/// is made with its `fn new()` if the block has one, else with `Default`. See the
/// [providers guide](guide::providers) for every form.
pub use green_tea_macros::provider;

/// Declares a step: a request-scoped part of the graph, run on every request whose route needs
/// one of its values (or names it in `steps`), from scratch, and never otherwise.
///
/// `#[step(provides = "user", needs = ["sessions"])]` on a `fn` or `async fn`; without
/// `provides` it is a guard, which only accepts or rejects. Its parameters, by type: the
/// request head (`&Parts`, `&mut Parts`, `&HeaderMap`, `&Method`, `&Uri`), its needs (`&T` or
/// `Arc<T>`, in `needs` order) and axum-core extractors (`Query<T>`, ...). It returns its
/// value (a tuple for several keys, `()` for a guard), or a `Result` whose error is the
/// response that rejects the request. The fn stays callable; an empty braced struct of the
/// same name implements [`Step`](http::Step): register it with `.step(auth {})`.
///
/// ```
/// use green_tea::prelude::*;
///
/// struct User(String);
///
/// #[step(provides = "user")]
/// fn auth(parts: &Parts) -> Result<User, HttpError> {
///     let name = parts.headers.get("x-user").and_then(|v| v.to_str().ok());
///     let name = name.ok_or_else(|| HttpError::unauthorized("who are you?"))?;
///     Ok(User(name.to_owned()))
/// }
///
/// #[step(needs = "user")]
/// fn require_admin(user: &User) -> Result<(), HttpError> {
///     if user.0 == "admin" { Ok(()) } else { Err(HttpError::forbidden("admins only")) }
/// }
///
/// struct Admin;
///
/// #[route("/admin", steps = ["require_admin"])]
/// impl Admin {
///     #[get("/whoami")]
///     async fn whoami(#[needs("user")] user: &User) -> String {
///         user.0.clone()
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .step(auth {})
///     .step(require_admin {})
///     .routes(Admin::routes())
///     .build()
///     .unwrap();
/// let client = TestClient::new(app.clone());
/// assert_eq!(client.get("/admin/whoami").send().await.status(), 401);
/// assert_eq!(client.get("/admin/whoami").header("x-user", "ada").send().await.status(), 403);
/// let me = client.get("/admin/whoami").header("x-user", "admin").send().await;
/// assert_eq!(me.text(), "admin");
/// app.close().await.unwrap();
/// # }
/// ```
pub use green_tea_macros::step;

/// Turns the methods of an inherent impl block into routes under a prefix:
/// `#[route("/orders")]`, optionally with `steps = ["require_admin"]` for every route.
///
/// Each method marked [`get`], [`post`], [`put`], [`patch`] or [`delete`] is a handler (an
/// associated `fn` or `async fn` returning anything [`IntoResponse`](http::IntoResponse)). Its
/// parameters: `#[needs("key")] x: &T` or `Arc<T>` for a graph value, `#[body] x: T` for the
/// JSON body (`String` or `Bytes` for the raw one), and any axum-core extractor (`Path<T>`,
/// `Query<T>`, `HeaderMap`...). `Type::routes()` lists the block's routes; `discover()` finds
/// them too.
///
/// ```
/// use green_tea::prelude::*;
///
/// struct Orders;
///
/// #[route("/orders")]
/// impl Orders {
///     #[get("/{id}")]
///     async fn show(Path(id): Path<u64>, #[needs("currency")] currency: &String) -> String {
///         format!("order {id} in {currency}")
///     }
///
///     #[post("/", body_limit = 1024)]
///     async fn create(#[body] note: String) -> (StatusCode, String) {
///         (StatusCode::CREATED, note)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .value("currency", "EUR".to_owned())
///     .routes(Orders::routes())
///     .build()
///     .unwrap();
/// let client = TestClient::new(app.clone());
/// assert_eq!(client.get("/orders/7").send().await.text(), "order 7 in EUR");
/// let created = client.post("/orders").body("tea").send().await;
/// assert_eq!((created.status(), created.text()), (StatusCode::CREATED, "tea".to_owned()));
/// app.close().await.unwrap();
/// # }
/// ```
pub use green_tea_macros::route;

/// The method attributes of a [`route`] block: `#[get("/path")]`, optionally with
/// `steps = [...]` and `body_limit = bytes`. Outside a `#[route]` block they are an error.
///
/// ```
/// use green_tea::prelude::*;
///
/// struct Health;
///
/// #[route("/health")]
/// impl Health {
///     #[get("/")]
///     fn live() -> &'static str {
///         "ok"
///     }
///
///     #[delete("/cache", steps = ["require_admin"])]
///     async fn clear() -> StatusCode {
///         StatusCode::NO_CONTENT
///     }
/// }
///
/// assert_eq!(Health::routes().len(), 2);
/// ```
pub use green_tea_macros::{delete, get, patch, post, put};

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
        ProviderDescriptor, delete, get, patch, post, provider, put, route, step,
    };
    #[doc(no_inline)]
    pub use std::sync::Arc;
}

/// The guide, one page per topic; every Rust block in it is a doctest.
pub mod guide {
    #[doc = include_str!("../docs/getting-started.md")]
    pub mod getting_started {}
    #[doc = include_str!("../docs/providers.md")]
    pub mod providers {}
    #[doc = include_str!("../docs/steps.md")]
    pub mod steps {}
    #[doc = include_str!("../docs/routes.md")]
    pub mod routes {}
    /// Recipes: application policy written as ordinary providers.
    pub mod recipes {
        #[doc = include_str!("../docs/recipes/circuit-breakers.md")]
        pub mod circuit_breakers {}
    }
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
    pub use axum_core::extract::FromRequestParts;
    pub use axum_core::response::{IntoResponse, Response};
    pub use green_tea_core::__private::inventory;
    pub use green_tea_core::{
        BoxError, Location, NeedError, Needs, Provided, Provider, ProviderDescriptor, Registration,
        async_trait,
    };
    pub use green_tea_http::{
        HttpError, RequestContext, Route, RouteRegistration, Step, StepRegistration, join_paths,
    };
    pub use http::Method;
    pub use http::request::Parts;

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

    /// What a step fn may return: the value itself (or `()` for a guard)...
    // The error is a `Response` because `Step::run`'s is.
    #[allow(clippy::result_large_err)]
    pub fn step_ok<T>(value: T) -> Result<T, Response> {
        Ok(value)
    }

    /// ...or a `Result` of it, whose error is the response that rejects the request.
    #[allow(clippy::result_large_err)]
    pub fn step_result<T, E: IntoResponse>(result: Result<T, E>) -> Result<T, Response> {
        result.map_err(IntoResponse::into_response)
    }

    /// A step's need of the wrong type. `build()` checks every type, so this is a bug in a
    /// hand-written graph, answered as a 500 like any other server fault.
    pub fn need_rejection(error: NeedError) -> Response {
        let _ = error;
        HttpError::internal().into_response()
    }

    /// A route handler's answer, reported at its return type if it is not a response.
    pub fn into_response<R: IntoResponse>(response: R) -> Response {
        response.into_response()
    }

    /// Fails to compile, pointing at the type, unless a provided value can live in the graph.
    pub fn assert_value<T: Send + Sync + 'static>() {}

    /// Fails to compile unless the provider struct can be shared across tasks.
    pub fn assert_provider_state<T: Send + Sync + 'static>() {}

    /// Fails to compile, pointing at the type, unless a step or handler parameter is an
    /// axum-core extractor.
    pub fn assert_extractor<T: FromRequestParts<()>>() {}

    /// Fails to compile, pointing at the type, unless a `#[body]` parameter can be read from
    /// JSON. (Bound as `Deserialize<'de>` rather than `DeserializeOwned`, whose error lacks
    /// serde's "consider adding `#[derive(serde::Deserialize)]`".)
    pub fn assert_json_body<T: for<'de> serde::Deserialize<'de>>() {}

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
        /// Fails to compile, pointing at the type: it is not `Send` (or not sized).
        fn check(&self)
        where
            T: Send + Sized,
        {
        }
    }

    impl<T: ?Sized + Sync + 'static> ValueIsSync<T> for &TypeProbe<T> {}

    /// `check` for any other value: reports that it is not `Sync` (or not `'static`, or not
    /// sized).
    pub trait ValueIsAny<T: ?Sized> {
        /// Fails to compile, pointing at the type: it is not `Sync + 'static`.
        fn check(&self)
        where
            T: Sync + Sized + 'static,
        {
        }
    }

    impl<T: ?Sized> ValueIsAny<T> for TypeProbe<T> {}

    /// The graph operations on a value of type `T: Send + Sync + 'static`.
    pub trait GraphValue<T> {
        /// `descriptor.provides::<T>(key)`.
        fn provides(&self, descriptor: ProviderDescriptor, key: &'static str)
        -> ProviderDescriptor;
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
        fn provides(
            &self,
            descriptor: ProviderDescriptor,
            key: &'static str,
        ) -> ProviderDescriptor {
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
        fn provides(&self, descriptor: ProviderDescriptor, key: &'static str)
        -> ProviderDescriptor;
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

    /// The operations of a route on a value of type `T: Send + Sync + 'static` that it needs.
    pub trait RouteValue<T> {
        /// `route.needs::<T>(key)`.
        fn route_needs(&self, route: Route, key: &'static str) -> Route;
        /// `request.need::<T>(index)`.
        fn request_need(&self, request: &RequestContext, index: usize)
        -> Result<Arc<T>, HttpError>;
    }

    impl<T: Send + Sync + 'static> RouteValue<T> for &TypeProbe<T> {
        fn route_needs(&self, route: Route, key: &'static str) -> Route {
            route.needs::<T>(key)
        }
        fn request_need(
            &self,
            request: &RequestContext,
            index: usize,
        ) -> Result<Arc<T>, HttpError> {
            request.need::<T>(index)
        }
    }

    /// Stand-ins for a needed type that `check` already reported; they never run.
    pub trait NotARouteValue<T> {
        /// Never runs.
        fn route_needs(&self, route: Route, key: &'static str) -> Route;
        /// Never runs.
        fn request_need(&self, request: &RequestContext, index: usize)
        -> Result<Arc<T>, HttpError>;
    }

    impl<T> NotARouteValue<T> for TypeProbe<T> {
        fn route_needs(&self, _: Route, _: &'static str) -> Route {
            unreachable!("{REPORTED}")
        }
        fn request_need(&self, _: &RequestContext, _: usize) -> Result<Arc<T>, HttpError> {
            unreachable!("{REPORTED}")
        }
    }

    /// Running an extractor `T` on the request head; its rejection is the response.
    pub trait Extractor<T> {
        /// `T::from_request_parts(parts, &())`.
        fn extract<'a>(
            &self,
            parts: &'a mut Parts,
        ) -> impl Future<Output = Result<T, Response>> + Send + 'a
        where
            T: 'a;
    }

    impl<T: FromRequestParts<()>> Extractor<T> for &TypeProbe<T> {
        // Spelled out to match the trait, which promises `Send`.
        #[allow(clippy::manual_async_fn)]
        fn extract<'a>(
            &self,
            parts: &'a mut Parts,
        ) -> impl Future<Output = Result<T, Response>> + Send + 'a
        where
            T: 'a,
        {
            async move {
                T::from_request_parts(parts, &())
                    .await
                    .map_err(IntoResponse::into_response)
            }
        }
    }

    /// The stand-in for a type that `assert_extractor` already reported; it never runs.
    pub trait NotAnExtractor<T> {
        /// Never runs.
        fn extract<'a>(
            &self,
            parts: &'a mut Parts,
        ) -> impl Future<Output = Result<T, Response>> + Send + 'a
        where
            T: 'a;
    }

    impl<T> NotAnExtractor<T> for TypeProbe<T> {
        fn extract<'a>(
            &self,
            _: &'a mut Parts,
        ) -> impl Future<Output = Result<T, Response>> + Send + 'a
        where
            T: 'a,
        {
            // Never polled: the crate does not compile.
            std::future::pending()
        }
    }

    /// Reading a `#[body]` of type `T` as JSON.
    pub trait JsonBody<T> {
        /// `request.json::<T>()`.
        fn json_body<'a>(
            &self,
            request: &'a mut RequestContext,
        ) -> impl Future<Output = Result<T, HttpError>> + Send + 'a
        where
            T: 'a;
    }

    impl<T: serde::de::DeserializeOwned> JsonBody<T> for &TypeProbe<T> {
        fn json_body<'a>(
            &self,
            request: &'a mut RequestContext,
        ) -> impl Future<Output = Result<T, HttpError>> + Send + 'a
        where
            T: 'a,
        {
            request.json::<T>()
        }
    }

    /// The stand-in for a body type that `assert_json_body` already reported; it never runs.
    pub trait NotAJsonBody<T> {
        /// Never runs.
        fn json_body<'a>(
            &self,
            request: &'a mut RequestContext,
        ) -> impl Future<Output = Result<T, HttpError>> + Send + 'a
        where
            T: 'a;
    }

    impl<T> NotAJsonBody<T> for TypeProbe<T> {
        fn json_body<'a>(
            &self,
            _: &'a mut RequestContext,
        ) -> impl Future<Output = Result<T, HttpError>> + Send + 'a
        where
            T: 'a,
        {
            // Never polled: the crate does not compile.
            std::future::pending()
        }
    }

    /// The route `#[route]` writes for one method, for needs `S: Send + Sync + 'static`:
    /// `handle` reads the request and calls the method; a rejection (an extractor's, a
    /// need's or the body's) is the response. A method whose future is not `Send` is reported
    /// once, at the method.
    pub trait SharedRoute {
        /// `Route::new(method, path, handler)`.
        fn route<F, Fut>(&self, method: Method, path: String, handle: F) -> Route
        where
            F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<Response, Response>> + Send + 'static;
    }

    impl<S: Send + Sync + 'static> SharedRoute for &TypeProbe<S> {
        fn route<F, Fut>(&self, method: Method, path: String, handle: F) -> Route
        where
            F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<Response, Response>> + Send + 'static,
        {
            Route::new(method, path, move |request| {
                let answer = handle(request);
                async move {
                    match answer.await {
                        Ok(response) | Err(response) => response,
                    }
                }
            })
        }
    }

    /// The stand-in for needs that are not `Send + Sync`, which `check` already reported (a
    /// future holding them is not `Send` either); it never runs.
    pub trait UnsharedRoute {
        /// Never runs.
        fn route<F, Fut>(&self, method: Method, path: String, handle: F) -> Route
        where
            F: Fn(RequestContext) -> Fut,
            Fut: Future<Output = Result<Response, Response>>;
    }

    impl<S> UnsharedRoute for TypeProbe<S> {
        fn route<F, Fut>(&self, _: Method, _: String, _: F) -> Route
        where
            F: Fn(RequestContext) -> Fut,
            Fut: Future<Output = Result<Response, Response>>,
        {
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
