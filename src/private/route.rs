//! A `#[route]` handler's reads: its needs, its extractors and its body, each through the type
//! probe (core's `__private::probe`), and the route itself.

use std::future::Future;
use std::sync::Arc;

use axum_core::extract::FromRequestParts;
use axum_core::response::{IntoResponse, Response};
use green_tea_core::__private::TypeProbe;
use green_tea_core::{All, ByName};
use green_tea_http::{HttpError, IntoReply, Reply, RequestContext, Route, reply_of};
use http::Method;
use http::request::Parts;

/// Why the stand-ins never run.
const REPORTED: &str = "a type that is not `Send + Sync + 'static` fails to compile";

/// The operations of a route on a value of type `T: Send + Sync + 'static` that it needs (for
/// a list or a map, `T` is each contribution's type).
pub trait RouteValue<T> {
    /// `route.needs::<T>(key)`.
    fn route_needs(&self, route: Route, key: &'static str) -> Route;
    /// `request.need::<T>(index)`.
    fn request_need(&self, request: &RequestContext, index: usize) -> Result<Arc<T>, HttpError>;
    /// `request.need_ref::<T>(index)`.
    fn request_need_ref<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<&'r T, HttpError>;
    /// `request.need_optional::<T>(index)`.
    fn request_need_optional(
        &self,
        request: &RequestContext,
        index: usize,
    ) -> Result<Option<Arc<T>>, HttpError>;
    /// `request.need_optional_ref::<T>(index)`.
    fn request_need_optional_ref<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<Option<&'r T>, HttpError>;
    /// `request.need_all::<T>(index)`.
    fn request_need_all<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<All<'r, T>, HttpError>;
    /// `request.need_by_name::<T>(index)`.
    fn request_need_by_name<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<ByName<'r, T>, HttpError>;
}

impl<T: Send + Sync + 'static> RouteValue<T> for &TypeProbe<T> {
    fn route_needs(&self, route: Route, key: &'static str) -> Route {
        route.needs::<T>(key)
    }
    fn request_need(&self, request: &RequestContext, index: usize) -> Result<Arc<T>, HttpError> {
        request.need::<T>(index)
    }
    fn request_need_ref<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<&'r T, HttpError> {
        request.need_ref::<T>(index)
    }
    fn request_need_optional(
        &self,
        request: &RequestContext,
        index: usize,
    ) -> Result<Option<Arc<T>>, HttpError> {
        request.need_optional::<T>(index)
    }
    fn request_need_optional_ref<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<Option<&'r T>, HttpError> {
        request.need_optional_ref::<T>(index)
    }
    fn request_need_all<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<All<'r, T>, HttpError> {
        request.need_all::<T>(index)
    }
    fn request_need_by_name<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<ByName<'r, T>, HttpError> {
        request.need_by_name::<T>(index)
    }
}

/// Stand-ins for a needed type that `check` already reported; they never run.
pub trait NotARouteValue<T> {
    /// Never runs.
    fn route_needs(&self, route: Route, key: &'static str) -> Route;
    /// Never runs.
    fn request_need(&self, request: &RequestContext, index: usize) -> Result<Arc<T>, HttpError>;
    /// Never runs.
    fn request_need_ref<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<&'r T, HttpError>;
    /// Never runs.
    fn request_need_optional(
        &self,
        request: &RequestContext,
        index: usize,
    ) -> Result<Option<Arc<T>>, HttpError>;
    /// Never runs.
    fn request_need_optional_ref<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<Option<&'r T>, HttpError>;
    /// Never runs.
    fn request_need_all<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<All<'r, T>, HttpError>;
    /// Never runs.
    fn request_need_by_name<'r>(
        &self,
        request: &'r RequestContext,
        index: usize,
    ) -> Result<ByName<'r, T>, HttpError>;
}

impl<T> NotARouteValue<T> for TypeProbe<T> {
    fn route_needs(&self, _: Route, _: &'static str) -> Route {
        unreachable!("{REPORTED}")
    }
    fn request_need(&self, _: &RequestContext, _: usize) -> Result<Arc<T>, HttpError> {
        unreachable!("{REPORTED}")
    }
    fn request_need_ref<'r>(&self, _: &'r RequestContext, _: usize) -> Result<&'r T, HttpError> {
        unreachable!("{REPORTED}")
    }
    fn request_need_optional(
        &self,
        _: &RequestContext,
        _: usize,
    ) -> Result<Option<Arc<T>>, HttpError> {
        unreachable!("{REPORTED}")
    }
    fn request_need_optional_ref<'r>(
        &self,
        _: &'r RequestContext,
        _: usize,
    ) -> Result<Option<&'r T>, HttpError> {
        unreachable!("{REPORTED}")
    }
    fn request_need_all<'r>(
        &self,
        _: &'r RequestContext,
        _: usize,
    ) -> Result<All<'r, T>, HttpError> {
        unreachable!("{REPORTED}")
    }
    fn request_need_by_name<'r>(
        &self,
        _: &'r RequestContext,
        _: usize,
    ) -> Result<ByName<'r, T>, HttpError> {
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

/// The stand-in for a type that `check_extractor` already reported; it never runs.
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
    fn extract<'a>(&self, _: &'a mut Parts) -> impl Future<Output = Result<T, Response>> + Send + 'a
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
/// need's or the body's) is the reply. A method whose future is not `Send` is reported
/// once, at the method.
pub trait SharedRoute {
    /// `Route::replying(method, path, handle)`.
    fn route<F, Fut>(&self, method: Method, path: String, handle: F) -> Route
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Reply> + Send + 'static;
}

impl<S: Send + Sync + 'static> SharedRoute for &TypeProbe<S> {
    fn route<F, Fut>(&self, method: Method, path: String, handle: F) -> Route
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Reply> + Send + 'static,
    {
        Route::replying(method, path, handle)
    }
}

/// The stand-in for needs that are not `Send + Sync`, which `check` already reported (a
/// future holding them is not `Send` either); it never runs.
pub trait UnsharedRoute {
    /// Never runs.
    fn route<F, Fut>(&self, method: Method, path: String, handle: F) -> Route
    where
        F: Fn(RequestContext) -> Fut,
        Fut: Future<Output = Reply>;
}

impl<S> UnsharedRoute for TypeProbe<S> {
    fn route<F, Fut>(&self, _: Method, _: String, _: F) -> Route
    where
        F: Fn(RequestContext) -> Fut,
        Fut: Future<Output = Reply>,
    {
        unreachable!("{REPORTED}")
    }
}

/// A handler's answer of one of green-tea's own types (`Json`, `HttpError`, text...): a
/// reply whose bytes are not boxed.
pub trait OwnReply<R> {
    /// `answer.into_reply()`.
    fn reply(&self, answer: R) -> Reply;
}

impl<R: IntoReply> OwnReply<R> for &&TypeProbe<R> {
    fn reply(&self, answer: R) -> Reply {
        answer.into_reply()
    }
}

/// Any other `IntoResponse` answer: its response, held as it is.
pub trait AnyReply<R> {
    /// `reply_of(answer.into_response())`.
    fn reply(&self, answer: R) -> Reply;
}

impl<R: IntoResponse> AnyReply<R> for &TypeProbe<R> {
    fn reply(&self, answer: R) -> Reply {
        reply_of(answer.into_response())
    }
}

/// The stand-in for an answer that is not a response, which `assert_response` already
/// reported; it never runs.
pub trait NotAReply<R> {
    /// Never runs.
    fn reply(&self, answer: R) -> Reply;
}

impl<R> NotAReply<R> for TypeProbe<R> {
    fn reply(&self, _: R) -> Reply {
        unreachable!("an answer that is not `IntoResponse` fails to compile")
    }
}

/// The probe for the type of `value` (for answers whose type the expansion cannot name, such
/// as `impl IntoResponse`).
pub fn probe_of<T>(value: &T) -> TypeProbe<T> {
    let _ = value;
    TypeProbe::new()
}
