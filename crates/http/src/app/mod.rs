//! `App`: the container, the steps and the routes, compiled at `build()` into a dispatch table.

mod builder;
mod close;
mod dispatch;
mod in_flight;

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use axum_core::body::Body;
use axum_core::response::Response;
use http::{HeaderValue, Method, Request};

use green_tea_core::{AppValue, CloseError, Container, KeySpec, Location, Needs};

pub use builder::AppBuilder;
use in_flight::InFlight;
pub(crate) use in_flight::InFlightBody;
pub use in_flight::InFlightGuard;

use crate::plugin::Plugin;
use crate::route::Handler;
use crate::step::Step;

/// A built application: its graph checked, its routes compiled, nothing constructed yet.
///
/// Cheap to clone; clones share everything. Serve it with [`serve`](Self::serve), drive it
/// in-process with [`TestClient`](crate::TestClient), or mount it in a tower stack (it is a
/// `tower::Service`).
#[derive(Clone)]
pub struct App {
    pub(crate) inner: Arc<AppInner>,
}

pub(crate) struct AppInner {
    pub(crate) container: Container,
    pub(crate) router: matchit::Router<usize>,
    pub(crate) paths: Vec<PathEntry>,
    pub(crate) routes: Vec<CompiledRoute>,
    pub(crate) steps: Vec<StepInfo>,
    pub(crate) plugins: Vec<Arc<dyn Plugin>>,
    pub(crate) in_flight: Arc<InFlight>,
    pub(crate) shutdown: tokio::sync::watch::Sender<bool>,
    pub(crate) close_outcome: tokio::sync::OnceCell<Result<(), CloseError>>,
    pub(crate) drain_timeout: Duration,
    pub(crate) limits: crate::limits::Limits,
    pub(crate) dispose_timeout: Duration,
    /// What a synchronous step that declares no needs is given, on every request.
    pub(crate) no_needs: Needs,
}

/// One path template and the routes at it, one per method.
pub(crate) struct PathEntry {
    pub(crate) template: String,
    pub(crate) methods: Vec<(Method, usize)>,
    /// The `Allow` header for a 405 here.
    pub(crate) allow: HeaderValue,
}

impl PathEntry {
    /// The route for `method`; a `HEAD` without its own route is served by `GET`.
    fn route_for(&self, method: &Method) -> Option<usize> {
        let find = |m: &Method| {
            self.methods
                .iter()
                .find(|(have, _)| have == m)
                .map(|(_, r)| *r)
        };
        find(method).or_else(|| {
            (method == Method::HEAD)
                .then(|| find(&Method::GET))
                .flatten()
        })
    }
}

/// A step as registered, for running and for `explain`.
pub(crate) struct StepInfo {
    pub(crate) step: Arc<dyn Step>,
    pub(crate) name: String,
    pub(crate) provides: Arc<[KeySpec]>,
    pub(crate) need_specs: Arc<[KeySpec]>,
    pub(crate) location: Location,
    /// Whether each request's values are checked against `provides` (see
    /// [`Step::returns_declared_types`]).
    pub(crate) checked: bool,
}

/// Where a value comes from while serving: a provider (by index) or an earlier step of the
/// same request (by position in the request's local values).
#[derive(Clone, Copy, Debug)]
pub(crate) enum ValueSource {
    App(AppValue),
    Local(usize),
}

/// One step of one route's plan.
pub(crate) struct PlannedStep {
    pub(crate) step: usize,
    pub(crate) needs: Box<[ValueSource]>,
}

/// A route compiled at `build()`: everything serving needs, by index.
pub(crate) struct CompiledRoute {
    pub(crate) method: Method,
    pub(crate) template: String,
    pub(crate) name: String,
    pub(crate) location: Location,
    pub(crate) handler: Arc<dyn Handler>,
    pub(crate) steps: Box<[PlannedStep]>,
    pub(crate) local_count: usize,
    pub(crate) needs: Box<[ValueSource]>,
    pub(crate) need_specs: Arc<[KeySpec]>,
    /// Every provider value the route's steps and handler read, for `explain`.
    pub(crate) app_values: Box<[AppValue]>,
    pub(crate) body_limit: usize,
}

impl App {
    /// Starts declaring an app.
    pub fn builder() -> AppBuilder {
        AppBuilder::new()
    }

    /// Answers one request in-process: routing, steps, handler, errors as JSON.
    pub async fn handle(&self, request: Request<Body>) -> Response {
        let (response, in_flight) = Arc::clone(&self.inner).dispatch(request).await;
        match in_flight {
            Some(in_flight) => {
                response.map(|body| Body::new(InFlightBody::new(body, Some(in_flight))))
            }
            None => response,
        }
    }

    /// The app's container of providers.
    pub fn container(&self) -> &Container {
        &self.inner.container
    }

    /// The provider value of `key` (see [`Container::get`]).
    pub async fn get<T: Send + Sync + 'static>(
        &self,
        key: &str,
    ) -> Result<Arc<T>, green_tea_core::ProvideError> {
        self.inner.container.get(key).await
    }

    /// Builds, now, every provider that some route reaches (see [`Container::start`]);
    /// providers no route reaches are left alone. On failure, what was built is disposed and
    /// the app's container is closed.
    pub async fn start(&self) -> Result<(), green_tea_core::ProvideError> {
        let roots: Vec<AppValue> = self
            .inner
            .routes
            .iter()
            .flat_map(|r| r.app_values.iter().copied())
            .collect();
        self.inner.container.start_values(&roots).await
    }

    /// Whether `close()` has begun.
    pub fn is_closed(&self) -> bool {
        *self.inner.shutdown.borrow()
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("routes", &self.inner.routes.len())
            .field("steps", &self.inner.steps.len())
            .field("closed", &self.is_closed())
            .finish()
    }
}

pub(crate) type AnyValue = Arc<dyn Any + Send + Sync>;
