//! A routed request as it is held, and what its run reads of its app, and nothing else.
//!
//! [`RequestState`] is the request: its head, its body, its values and its route, boxed once
//! when it is routed and moved as one pointer from the dispatch to the steps and the handler.
//! [`Runtime`] is what it runs on: the container, each route's run (its plan, its entry, its
//! body limit), the steps, the limits and the drain. The app holds the runtime and hands it to
//! every request it routes; the request's context, the routes' entries and their layers see
//! only this, never the app (its router, its health, its close). The two are in one file
//! because each names the other: a request holds its runtime, and a route's entry runs a
//! request.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum_core::body::Body;
use http::request::Parts;
use http_body::Body as _;
use smallvec::SmallVec;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::build::RoutePlan;
use green_tea_core::__private::layer::values::{AnyValue, IdVec, RouteId, Source, StepId};
use green_tea_core::{Container, Descriptor};

use crate::error::HttpError;
use crate::finish::Finishing;
use crate::in_flight::InFlight;
use crate::limits::Limits;
use crate::response::{IntoReply, Reply};
use crate::step::Step;

/// The part of an app its requests run on.
pub(crate) struct Runtime {
    pub(crate) container: Container,
    pub(crate) routes: IdVec<RouteId, RouteRun>,
    pub(crate) steps: IdVec<StepId, CompiledStep>,
    /// This generation's requests in flight (each generation counts its own).
    pub(crate) in_flight: Arc<InFlight>,
    /// The app's close has begun: shared by every generation.
    pub(crate) shutdown: Arc<tokio::sync::watch::Sender<bool>>,
    pub(crate) limits: Limits,
}

/// A route as its requests run it: compiled at `build()`, by id.
pub(crate) struct RouteRun {
    /// The handler's declaration: its title (`POST /orders -> Orders::create`), needs and
    /// location.
    pub(crate) descriptor: Descriptor,
    /// The handler, with the route's steps before it.
    pub(crate) entry: Arc<dyn Entry>,
    /// The same under the route's own layers, if it has any: where a routed request starts.
    pub(crate) layered: Option<Arc<dyn Entry>>,
    pub(crate) plan: RoutePlan,
    /// Whether every provider the route reads has been built (then a request skips the
    /// check of each).
    pub(crate) ready: AtomicBool,
    pub(crate) body_limit: usize,
}

/// A step as registered, for running and for `explain`.
#[derive(Clone)]
pub(crate) struct CompiledStep {
    pub(crate) step: Arc<dyn Step>,
    pub(crate) descriptor: Descriptor,
    /// The step that provides `clientAddr`: its value comes from the request's context rather
    /// than from running it.
    pub(crate) from_connection: bool,
    /// The path of the module it was registered in, if any (for `explain`).
    pub(crate) module: Option<Arc<str>>,
    /// Which of its values finish with the request.
    pub(crate) finishing: Finishing,
    /// Whether it is on in today's shape (always, without switches): one that is off runs in
    /// no route's plan.
    pub(crate) on: bool,
}

/// A request's run, type-erased: the one box a request pays for.
pub(crate) type RunFuture = Pin<Box<dyn Future<Output = Reply> + Send + 'static>>;

/// What a route keeps of its handler (and of its layers): the run of a routed request.
pub(crate) trait Entry: Send + Sync + 'static {
    /// The request's steps, then the handler, on `held` (under the route's layers, for the
    /// layered entry).
    fn run(&self, held: Box<RequestState>) -> RunFuture;

    /// The same handler's entry for a route that runs a finishing step: its steps' values
    /// kept, the handler's panic caught, then the values finished before the answer is
    /// returned. `None` for an entry that is not a handler's.
    fn finishing(&self) -> Option<Arc<dyn Entry>> {
        None
    }
}

impl Runtime {
    /// The runtime of the generation after this one, on `container`: the same routes,
    /// steps, limits and shutdown signal; its own count of requests in flight, and each
    /// route's providers to be found built again.
    pub(crate) fn next(&self, container: Container) -> Runtime {
        Runtime {
            container,
            routes: self.routes.map_ref(|_, route| RouteRun {
                descriptor: route.descriptor.clone(),
                entry: Arc::clone(&route.entry),
                layered: route.layered.clone(),
                plan: route.plan.clone(),
                ready: AtomicBool::new(false),
                body_limit: route.body_limit,
            }),
            steps: self.steps.clone(),
            in_flight: Arc::default(),
            shutdown: Arc::clone(&self.shutdown),
            limits: self.limits,
        }
    }

    /// A routed request's run: through its route's layers if it has any, else its steps and
    /// handler.
    #[inline]
    pub(crate) fn start(held: Box<RequestState>) -> RunFuture {
        let runtime = Arc::clone(&held.runtime);
        let route = &runtime.routes[held.route];
        match &route.layered {
            Some(layered) => layered.run(held),
            None => route.entry.run(held),
        }
    }

    /// Builds the providers of `needs` that are not built yet (single-flight). Boxed: only
    /// the first requests of a route pay for it, and every other request's future keeps no
    /// room for it.
    pub(crate) fn build_providers<'a>(
        &'a self,
        needs: &'a [Source],
    ) -> Pin<Box<dyn Future<Output = Result<(), Reply>> + Send + 'a>> {
        Box::pin(async move {
            for need in needs {
                let Source::App(at) = *need else { continue };
                match layer::values::try_value(&self.container, at) {
                    Ok(Some(_)) => continue,
                    Ok(None) => layer::values::build(&self.container, at).await,
                    Err(closed) => Err(closed),
                }
                .map_err(|error| HttpError::from(error).into_reply())?;
            }
            Ok(())
        })
    }
}

/// One request's values: its steps' outputs, in run order. Inline up to four (the common
/// case), so that holding them costs no allocation per request.
pub(crate) type RequestValues = SmallVec<[AnyValue; 4]>;

/// A routed request, boxed once: what its context holds. The dispatch runs the steps on it
/// before the handler gets it (as a `RequestContext`).
pub(crate) struct RequestState {
    pub(crate) parts: Parts,
    pub(crate) body: Option<RequestBody>,
    /// The values its steps provided.
    pub(crate) locals: RequestValues,
    /// What it runs on: the limits, the route's plan, the container, the drain.
    pub(crate) runtime: Arc<Runtime>,
    pub(crate) route: RouteId,
    /// The client's address, from the connection.
    pub(crate) peer: Option<SocketAddr>,
}

impl RequestState {
    // Inlined, so that the request's head (224 bytes) is moved into the box from where the
    // dispatch has it rather than copied into this call's arguments first.
    #[inline]
    pub(crate) fn new(
        parts: Parts,
        body: RequestBody,
        runtime: Arc<Runtime>,
        route: RouteId,
        peer: Option<SocketAddr>,
    ) -> Box<Self> {
        // Sized for the route's values only past what fits inline: `with_capacity` of an
        // inline size still goes through `SmallVec`'s reserve.
        let wanted = runtime.routes[route].plan.locals;
        let locals = if wanted <= RequestValues::new().inline_size() {
            RequestValues::new()
        } else {
            RequestValues::with_capacity(wanted)
        };
        Box::new(RequestState {
            parts,
            body: Some(body),
            locals,
            runtime,
            route,
            peer,
        })
    }
}

/// A request body as the app holds it: hyper's own on the serving path (no boxing), any other
/// body from tower or `TestClient`.
pub(crate) enum RequestBody {
    Hyper(hyper::body::Incoming),
    Boxed(Body),
}

impl From<hyper::body::Incoming> for RequestBody {
    fn from(body: hyper::body::Incoming) -> Self {
        RequestBody::Hyper(body)
    }
}

impl From<Body> for RequestBody {
    fn from(body: Body) -> Self {
        RequestBody::Boxed(body)
    }
}

impl RequestBody {
    /// The length the client announced (`content-length`), or 0.
    #[inline]
    pub(crate) fn announced(&self) -> u64 {
        match self {
            RequestBody::Hyper(body) => body.size_hint().lower(),
            RequestBody::Boxed(body) => body.size_hint().lower(),
        }
    }

    /// As axum-core's body (hyper's boxed; one already boxed as it is).
    pub(crate) fn into_body(self) -> Body {
        match self {
            RequestBody::Hyper(body) => Body::new(body),
            RequestBody::Boxed(body) => body,
        }
    }
}
