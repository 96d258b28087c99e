//! tower layers around the whole app ([`AppBuilder::layer`]) and around one route's steps and
//! handler ([`Route::layer`]). Both are applied once, at `build()`, over [`Layered`]: the app
//! or the route as a boxed, clonable tower `Service`. A request meets the layers only of what
//! it reaches, and an app without layers never builds one (the server and `App::handle` check
//! once whether the app has any).
//!
//! Below the app: the app's innermost service reaches it through [`Dispatch`], which the app
//! implements; a route's reaches the request's [`Runtime`].
//!
//! [`AppBuilder::layer`]: crate::AppBuilder::layer
//! [`Route::layer`]: crate::Route::layer

use std::convert::Infallible;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

use arc_swap::ArcSwap;

use axum_core::body::Body;
use axum_core::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use http::Request;
use tower::util::BoxCloneSyncService;
use tower::{Layer, ServiceExt};
use tower_service::Service;

use green_tea_core::__private::layer::failures::panic_message;
use green_tea_core::__private::layer::values::RouteId;
use green_tea_core::BoxError;

use crate::client_addr::ClientAddr;
use crate::context::RequestContext;
use crate::error::HttpError;
use crate::response::{IntoReply, Reply, reply_of};
use crate::runtime::{Entry, RequestBody, RequestState, RunFuture, Runtime};

/// What a layer wraps: the app, or one route's steps and handler, as a tower `Service`, with
/// the layers added before it already around it.
///
/// Any body goes in (a layer may change the request's body type, as tower-http's
/// `RequestBodyLimitLayer` does); an axum-core [`Response`] comes out; it never fails (errors
/// are responses).
#[derive(Clone)]
pub struct Layered(Inner);

/// The app's and a route's own entries are held as they are, not boxed: the innermost
/// service is cloned and called on every request, and a box would cost an allocation for
/// each clone and another for each call's future.
#[derive(Clone)]
enum Inner {
    App(AppEntry),
    Route(RouteEntry),
    Boxed(BoxCloneSyncService<Request<Body>, Response, Infallible>),
}

impl Layered {
    pub(crate) fn new<S>(service: S) -> Self
    where
        S: Service<Request<Body>, Response = Response, Error = Infallible>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
    {
        Layered(Inner::Boxed(BoxCloneSyncService::new(service)))
    }
}

impl std::fmt::Debug for Layered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Layered")
    }
}

impl<B> Service<Request<B>> for Layered
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        match &mut self.0 {
            Inner::App(_) | Inner::Route(_) => Poll::Ready(Ok(())),
            Inner::Boxed(service) => service.poll_ready(cx),
        }
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let request = request.map(Body::new);
        match &mut self.0 {
            Inner::App(entry) => entry.call(request),
            Inner::Route(entry) => entry.call(request),
            Inner::Boxed(service) => service.call(request),
        }
    }
}

/// A layer as the builders keep it until `build()`: applied once, over what is inside it; and
/// its type's name, for `explain`.
pub(crate) struct ApplyLayer {
    pub(crate) name: String,
    apply: Box<dyn FnOnce(Layered) -> Layered + Send + Sync>,
}

/// `layer` as the builders keep it. The bounds are axum's for `Router::layer`: the layer's
/// service answers with anything `IntoResponse` and never fails.
pub(crate) fn apply<L>(layer: L) -> ApplyLayer
where
    L: Layer<Layered> + Send + Sync + 'static,
    L::Service: Service<Request<Body>> + Clone + Send + Sync + 'static,
    <L::Service as Service<Request<Body>>>::Response: IntoResponse + 'static,
    <L::Service as Service<Request<Body>>>::Error: Into<Infallible> + 'static,
    <L::Service as Service<Request<Body>>>::Future: Send + 'static,
{
    ApplyLayer {
        name: short_type_name::<L>(),
        apply: Box::new(move |inner| erase(layer.layer(inner))),
    }
}

/// `CorsLayer` rather than `tower_http::cors::CorsLayer`, `ServeDir` rather than
/// `tower_http::services::fs::serve_dir::ServeDir<...>`.
pub(crate) fn short_type_name<T>() -> String {
    // Without its parameters: a layer's are its inner service's, which explain shows apart.
    let full = std::any::type_name::<T>();
    let base = full.split('<').next().unwrap_or(full);
    green_tea_key::short_type_name(base).to_owned()
}

/// Any service that answers with something `IntoResponse` and never fails, as a [`Layered`].
pub(crate) fn erase<S>(service: S) -> Layered
where
    S: Service<Request<Body>> + Clone + Send + Sync + 'static,
    S::Response: IntoResponse + 'static,
    S::Error: Into<Infallible> + 'static,
    S::Future: Send + 'static,
{
    Layered::new(
        service
            .map_response(IntoResponse::into_response)
            .map_err(Into::into),
    )
}

/// `layers` applied in the order they were added: the last one added is the outermost, and
/// sees the request first (as with axum's `Router::layer`).
pub(crate) fn stack(innermost: Layered, layers: Vec<ApplyLayer>) -> Layered {
    layers
        .into_iter()
        .fold(innermost, |inner, layer| (layer.apply)(inner))
}

/// How the app's global layers' innermost service reaches the app: the app answers the
/// request, its reply's body holding the request's place in flight.
pub(crate) trait Dispatch: Send + Sync + 'static {
    fn dispatch_layered(
        self: Arc<Self>,
        request: Request<Body>,
    ) -> BoxFuture<'static, Result<Response, Infallible>>;
}

/// The app under its global layers: what the outermost layer's innermost service calls.
/// Holds the app weakly: the app holds its layers, and a strong reference back would keep an
/// app that is dropped alive.
pub(crate) fn app_entry(app: Weak<dyn Dispatch>) -> Layered {
    Layered(Inner::App(AppEntry(app)))
}

/// One route's steps and handler under the route's own layers. The request brings the
/// generation it runs on through the layers (an extension only this file names), so the
/// layers, made once, serve every generation a reload makes; `serving` is the app's
/// generation, held weakly (the app holds its layers), for a request that lost it.
pub(crate) fn route_entry(serving: Weak<ArcSwap<Runtime>>, route: RouteId) -> Layered {
    Layered(Inner::Route(RouteEntry { serving, route }))
}

/// The generation a request routed under a route's layers runs on: put in its extensions
/// before the layers, taken out after them.
#[derive(Clone)]
struct Generation(Arc<Runtime>);

/// A route's run under its layers: the entry a routed request starts at.
pub(crate) struct LayeredEntry(pub(crate) Layered);

impl Entry for LayeredEntry {
    fn run(&self, held: Box<RequestState>) -> RunFuture {
        through_route(self.0.clone(), held)
    }
}

#[derive(Clone)]
struct AppEntry(Weak<dyn Dispatch>);

impl Service<Request<Body>> for AppEntry {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        match self.0.upgrade() {
            Some(app) => app.dispatch_layered(request),
            None => Box::pin(std::future::ready(Ok(gone()))),
        }
    }
}

#[derive(Clone)]
struct RouteEntry {
    serving: Weak<ArcSwap<Runtime>>,
    route: RouteId,
}

impl Service<Request<Body>> for RouteEntry {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        // A layer that made a request of its own (rather than pass on the one it was given)
        // dropped its generation with it: that request runs on the one that serves now.
        let runtime = match request.extensions_mut().remove::<Generation>() {
            Some(Generation(runtime)) => runtime,
            None => match self.serving.upgrade() {
                Some(serving) => serving.load_full(),
                None => return Box::pin(std::future::ready(Ok(gone()))),
            },
        };
        let (parts, body) = request.into_parts();
        let peer = ClientAddr::of_extensions(&parts.extensions);
        let held = RequestState::new(parts, RequestBody::Boxed(body), runtime, self.route, peer);
        // The route's steps and handler, its layers passed.
        let runtime = Arc::clone(&held.runtime);
        let run = runtime.routes[self.route].entry.run(held);
        Box::pin(run.map(|reply| Ok(reply.map(Body::new))))
    }
}

/// Only a layer that keeps a clone of its inner service past the app's life gets here.
fn gone() -> Response {
    HttpError::unavailable("the app has been dropped")
        .into_reply()
        .map(Body::new)
}

/// The routed request through its route's layers (then its steps and handler), on the
/// generation it was routed on.
fn through_route(layered: Layered, held: Box<RequestState>) -> RunFuture {
    let (mut request, runtime) = RequestContext::new(held).into_request_and_runtime();
    request.extensions_mut().insert(Generation(runtime));
    Box::pin(through(layered, request))
}

/// `request` through `layered` (the app's global layers, or a route's), a panic in any of
/// them a 500.
pub(crate) fn through(
    layered: Layered,
    request: Request<Body>,
) -> impl Future<Output = Reply> + Send + 'static {
    AssertUnwindSafe(layered.oneshot(request))
        .catch_unwind()
        .map(|answered| match answered {
            Ok(Ok(response)) => reply_of(response),
            Ok(Err(never)) => match never {},
            Err(panic) => {
                let message = panic_message(&*panic);
                tracing::error!(panic = %message, "a layer panicked");
                HttpError::internal().into_reply()
            }
        })
}
