//! `RequestContext`: what a handler gets: the request head, the values it needs, axum-core
//! extractors on the head, the client's address and the request's place in flight. Reading its
//! body is `body.rs`'s.

use std::net::SocketAddr;
use std::sync::Arc;

use axum_core::body::Body;
use axum_core::extract::FromRequestParts;
use axum_core::response::{IntoResponse, Response};
use http::request::Parts;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::values::{AnyValue, Source};
use green_tea_core::{All, ByName};

use crate::client_addr::ClientAddr;
use crate::error::HttpError;
use crate::in_flight::InFlightGuard;
use crate::runtime::{RequestBody, RequestState, RouteRun, Runtime};

/// One request as a handler sees it.
// One pointer: the request is boxed once, when it is routed, and then moves between the
// request's future, the steps and the handler without being copied (its head alone is 224
// bytes).
pub struct RequestContext(pub(super) Box<RequestState>);

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = &self.0;
        f.debug_struct("RequestContext")
            .field("method", &held.parts.method)
            .field("uri", &held.parts.uri)
            .field("version", &held.parts.version)
            .field("route", &held.route)
            .field("peer", &held.peer)
            .field("body_taken", &held.body.is_none())
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    pub(crate) fn new(held: Box<RequestState>) -> Self {
        RequestContext(held)
    }

    /// The address of the client at the other end of the connection, if it has one (see
    /// [`ClientAddr`]: steps and handlers can also need it as the request value
    /// `clientAddr`).
    pub fn client_addr(&self) -> Option<SocketAddr> {
        self.0.peer
    }

    /// The request as it is now: head and body (an empty body if it was taken). The client's
    /// address goes with it, in its extensions.
    pub(crate) fn into_request(self) -> http::Request<Body> {
        self.into_request_and_runtime().0
    }

    /// [`into_request`](Self::into_request), and the generation the request runs on.
    pub(crate) fn into_request_and_runtime(self) -> (http::Request<Body>, Arc<Runtime>) {
        let RequestState {
            mut parts,
            body,
            peer,
            runtime,
            ..
        } = *self.0;
        if peer.is_some() {
            parts.extensions.insert(ClientAddr(peer));
        }
        let body = body.map_or_else(Body::empty, RequestBody::into_body);
        (http::Request::from_parts(parts, body), runtime)
    }

    #[inline]
    pub(super) fn route(&self) -> &RouteRun {
        &self.0.runtime.routes[self.0.route]
    }

    /// Keeps this request in flight after its response has gone, until the guard is dropped:
    /// `close()` waits for it (up to the drain timeout) before it disposes any provider. For
    /// work that outlives the response and uses the app's providers: an upgraded connection
    /// (a WebSocket session), a task the handler spawns. The guard also says when `close()`
    /// has begun, so that such work can wind down.
    ///
    /// Take it in the handler, before its response is returned: the request is in flight
    /// then, so `close()` cannot have finished draining. A guard taken later, from a context
    /// kept past its response, may come after `close()` is done and then holds nothing back.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use green_tea::test::TestClient;
    ///
    /// # #[tokio::main] async fn main() {
    /// let app = App::builder()
    ///     .route(Route::post("/jobs", |request: RequestContext| {
    ///         let guard = request.keep_in_flight();
    ///         async move {
    ///             tokio::spawn(async move {
    ///                 guard.closing().await; // or the work's own end, whichever comes first
    ///                 // ... finish with the providers, then drop the guard
    ///             });
    ///             "accepted"
    ///         }
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// let client = TestClient::new(app.clone());
    /// assert_eq!(client.post("/jobs").send().await.text(), "accepted");
    /// app.close().await.unwrap(); // waits for the spawned task
    /// # }
    /// ```
    pub fn keep_in_flight(&self) -> InFlightGuard {
        InFlightGuard::new(&self.0.runtime.in_flight, &self.0.runtime.shutdown)
    }

    /// The `index`-th key the route declared in its needs, as a `T`. Types were checked at
    /// build, so this fails only if the handler asks with another type than it declared.
    pub fn need<T: Send + Sync + 'static>(&self, index: usize) -> Result<Arc<T>, HttpError> {
        let value = self.need_value(index)?;
        Arc::clone(value)
            .downcast::<T>()
            .map_err(|_| self.wrong_need_type::<T>(index))
    }

    /// The same, borrowed from the request: no `Arc` to count up and down.
    pub fn need_ref<T: Send + Sync + 'static>(&self, index: usize) -> Result<&T, HttpError> {
        let value = self.need_value(index)?;
        (**value)
            .downcast_ref::<T>()
            .ok_or_else(|| self.wrong_need_type::<T>(index))
    }

    /// The `index`-th need, an optional one (`cache?`): `None` when nothing provides it.
    pub fn need_optional<T: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<Option<Arc<T>>, HttpError> {
        match self.is_absent(index) {
            true => Ok(None),
            false => self.need(index).map(Some),
        }
    }

    /// The same, borrowed from the request.
    pub fn need_optional_ref<T: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<Option<&T>, HttpError> {
        match self.is_absent(index) {
            true => Ok(None),
            false => self.need_ref(index).map(Some),
        }
    }

    /// The `index`-th need, a list (`notifiers[]`) of `T`, borrowed from the app: every
    /// contribution, in order.
    pub fn need_all<T: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<All<'_, T>, HttpError> {
        let value = self.need_value(index)?;
        layer::values::all(value).ok_or_else(|| self.wrong_need_type::<T>(index))
    }

    /// The `index`-th need, a map (`stores{}`) of `T` by name, borrowed from the app.
    pub fn need_by_name<T: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<ByName<'_, T>, HttpError> {
        let value = self.need_value(index)?;
        layer::values::by_name(value).ok_or_else(|| self.wrong_need_type::<T>(index))
    }

    /// Whether the `index`-th need is an optional one that nothing provides.
    fn is_absent(&self, index: usize) -> bool {
        matches!(self.route().plan.needs.get(index), Some(Source::Absent))
    }

    // Inlined into `need` and `need_ref`, which the handler's crate compiles: its errors are
    // out of line.
    #[inline]
    fn need_value(&self, index: usize) -> Result<&AnyValue, HttpError> {
        let route = self.route();
        let Some(source) = route.plan.needs.get(index) else {
            return Err(self.undeclared_need(index));
        };
        layer::values::source_value(&self.0.runtime.container, &self.0.locals, *source)
            .ok_or_else(|| self.unavailable_need(index))
    }

    #[cold]
    fn undeclared_need(&self, index: usize) -> HttpError {
        tracing::error!(
            index,
            declared = self.route().plan.needs.len(),
            "a handler asked for an undeclared need"
        );
        HttpError::internal()
    }

    #[cold]
    fn unavailable_need(&self, index: usize) -> HttpError {
        tracing::error!(key = %self.route().descriptor.needs[index].key, "a need is not available");
        HttpError::internal()
    }

    #[cold]
    fn wrong_need_type<T: 'static>(&self, index: usize) -> HttpError {
        let spec = &self.route().descriptor.needs[index];
        tracing::error!(
            key = %spec.key,
            declared = %spec.ty,
            requested = std::any::type_name::<T>(),
            "a handler asked for a need with the wrong type"
        );
        HttpError::internal()
    }

    /// The request head: method, URI, headers, extensions.
    pub fn parts(&self) -> &Parts {
        &self.0.parts
    }

    /// The request head, mutably.
    pub fn parts_mut(&mut self) -> &mut Parts {
        &mut self.0.parts
    }

    /// Runs any axum-core extractor on the request head. Its rejection is a response.
    pub async fn extract<E: FromRequestParts<()>>(&mut self) -> Result<E, Response> {
        E::from_request_parts(&mut self.0.parts, &())
            .await
            .map_err(IntoResponse::into_response)
    }
}
