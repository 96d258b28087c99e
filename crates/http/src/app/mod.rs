//! `App`: the container, the steps and the routes, compiled at `build()` into a dispatch table.

mod async_checks;
mod builder;
mod built_in;
mod close;
mod compile;
mod dispatch;
mod explain;
pub(crate) mod future;
mod generations;
mod health;
mod lock;
#[cfg(feature = "metrics")]
mod metered;
#[cfg(not(feature = "metrics"))]
#[path = "unmetered.rs"]
mod metered;
mod mount;
mod reload;
mod reload_on;
pub(crate) use generations::StopOnDrop;
mod switches;
mod workers;

use futures_util::FutureExt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum_core::body::Body;
use http::{HeaderValue, Method, Request};

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::values::{IdVec, RouteId};
use green_tea_core::{CloseError, Container};

pub use builder::AppBuilder;
pub(crate) use future::{DispatchFuture, Finish};
pub use lock::{LOCK_ENV, assert_graph_lock};

use crate::client_addr::ClientAddr;
use crate::layer::Layered;
use crate::response::Reply;
pub(crate) use crate::runtime::RunFuture;
use crate::runtime::Runtime;
use crate::warning::Warning;

/// A built application: its graph checked, its routes compiled, nothing constructed yet.
///
/// Cheap to clone; clones share everything. Serve it with [`serve`](Self::serve), drive it
/// in-process with [`TestClient`](crate::TestClient), or mount it in a tower stack (it is a
/// `tower::Service`).
#[derive(Clone)]
pub struct App {
    inner: Arc<AppInner>,
}

pub(crate) struct AppInner {
    /// What its requests run on, the generation that serves: each request holds the one it
    /// began on; a reload swaps in the next, whole.
    runtime: Arc<arc_swap::ArcSwap<Runtime>>,
    /// The reloads: one at a time, the generations they replaced until those are done.
    reloads: generations::Reloads,
    /// What else starts a reload: SIGHUP, a change of the settings file.
    reload_on: generations::ReloadOn,
    /// Whether the settings file is being watched (once, from `start()` or the first serve).
    watching: AtomicBool,
    router: matchit::Router<usize>,
    paths: Vec<PathEntry>,
    routes: IdVec<RouteId, CompiledRoute>,
    /// The modules' shutdown hooks, in registration order, each with its module's path;
    /// taken by `close()`.
    shutdown: std::sync::Mutex<Vec<(Arc<str>, crate::module::ShutdownHook)>>,
    close_outcome: tokio::sync::OnceCell<Result<(), CloseError>>,
    drain_timeout: Duration,
    /// How long `start()` may take as a whole.
    start_timeout: Duration,
    /// The budget of a whole `close()`.
    shutdown_timeout: Duration,
    dispose_timeout: Duration,
    warnings: Vec<Warning>,
    /// The route that answers when no path matches (`AppBuilder::fallback`).
    fallback: Option<RouteId>,
    /// The app under its global layers, if it has any.
    layered: Option<Layered>,
    /// The health routes and the explain page, if asked for.
    built_in: built_in::paths::BuiltIn,
    /// The critical keys and the health checks, resolved.
    health: crate::health::CompiledHealth,
    /// `start()` has succeeded or the app is being served (readiness).
    started: AtomicBool,
    /// The request metrics' handles (none without the feature `metrics`).
    metrics: Arc<metered::AppMetrics>,
}

/// One path template and the routes at it, one per method.
pub(crate) struct PathEntry {
    pub(crate) template: String,
    pub(crate) methods: Vec<(Method, RouteId)>,
    /// The `Allow` header for a 405 here.
    pub(crate) allow: HeaderValue,
    /// The route for every method without its own (`Route::any`, a mounted service).
    pub(crate) any: Option<RouteId>,
}

impl PathEntry {
    /// The route for `method`; a `HEAD` without its own route is served by `GET`.
    fn route_for(&self, method: &Method) -> Option<RouteId> {
        let find = |m: &Method| {
            self.methods
                .iter()
                .find(|(have, _)| have == m)
                .map(|(_, r)| *r)
        };
        find(method)
            .or_else(|| {
                (method == Method::HEAD)
                    .then(|| find(&Method::GET))
                    .flatten()
            })
            .or(self.any)
    }
}

/// What the app keeps of a route beside its run (the runtime's): for routing, metrics and
/// `explain`.
pub(crate) struct CompiledRoute {
    pub(crate) method: Method,
    pub(crate) template: String,
    /// The handler's name (`Orders::create`, or `POST /orders` for an unnamed closure).
    pub(crate) name: std::borrow::Cow<'static, str>,
    /// The layers a request to this route meets, outermost first (for `explain`).
    pub(crate) layer_names: Vec<String>,
    /// The path of the module it was registered in, if any (for `explain`).
    pub(crate) module: Option<Arc<str>>,
    /// Whether today's shape serves it (always, without switches).
    pub(crate) on: bool,
}

impl App {
    /// Starts declaring an app.
    pub fn builder() -> AppBuilder {
        AppBuilder::new()
    }

    /// Answers one request in-process: routing, steps, handler, errors as JSON. The reply's
    /// body holds the request in flight until it is dropped (reading it whole with a helper
    /// that consumes it, such as `axum::body::to_bytes`, drops it). (`reply.map(Body::new)`
    /// makes it an axum-core `Response`.)
    ///
    /// (Not an `async fn`: its future would hold the request a second time.)
    pub fn handle(
        &self,
        request: Request<Body>,
    ) -> impl std::future::Future<Output = Reply> + Send + 'static {
        use futures_util::future::Either;
        match self.layered() {
            None => Either::Left(self.answer(request, std::convert::identity)),
            Some(layered) => Either::Right(self.through_layers(layered.clone(), request)),
        }
    }

    /// `handle` of an app without global layers, its reply handed to `finish`: for the tower
    /// `Service`, whose future has one layer fewer this way.
    pub(crate) fn answer<O>(
        &self,
        request: Request<Body>,
        finish: impl FnOnce(Reply) -> O + Send + 'static,
    ) -> impl std::future::Future<Output = O> + Send + 'static {
        let peer = ClientAddr::of_extensions(request.extensions());
        self.inner
            .dispatch(request, peer, |reply: Reply, in_flight| {
                let mut reply = reply;
                reply.body_mut().hold_in_flight(in_flight);
                finish(reply)
            })
    }

    /// The app's container of providers: the generation that serves now (a
    /// [`reload`](Self::reload) makes the next).
    pub fn container(&self) -> Container {
        self.inner.runtime().container.clone()
    }

    /// The provider value of `key` (see [`Container::get`]).
    pub async fn get<T: Send + Sync + 'static>(
        &self,
        key: &str,
    ) -> Result<Arc<T>, green_tea_core::ProvideError> {
        self.inner.runtime().container.get(key).await
    }

    /// Builds, now, every provider that some route or worker reaches, independent ones
    /// concurrently; providers nothing reaches are left alone (`container().build_all()`
    /// builds every one). Then starts the workers.
    ///
    /// On failure no worker has started (workers start only once everything is built), what
    /// was built is disposed and the app is closed, as [`close()`](Self::close) closes it:
    /// [`is_closed`](Self::is_closed) is true, every route answers 503, liveness says so,
    /// and a later `serve` returns at once. A failure of that close is logged (the error
    /// returned is the one that stopped the start).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use green_tea::workers::WorkerFn;
    /// use green_tea::{App, BoxError, ProviderFn};
    /// let app = App::builder()
    ///     .provider(ProviderFn::new("broker", |_| async { Err::<String, BoxError>("down".into()) }))
    ///     .worker(WorkerFn::new("consumer", |_, _| async { Ok(()) }).needs::<String>("broker"))
    ///     .build()
    ///     .unwrap();
    /// assert!(app.start().await.is_err());
    /// assert!(app.is_closed());
    /// # }
    /// ```
    pub fn start(
        &self,
    ) -> impl Future<Output = Result<(), green_tea_core::ProvideError>> + Send + '_ {
        // Boxed here, as `close()` is: the builds, the workers' start and the close after a
        // failure are compiled once, in green-tea.
        self.start_now().boxed()
    }

    async fn start_now(&self) -> Result<(), green_tea_core::ProvideError> {
        // No reload replaces the generation while it starts (let go before a close below).
        let no_reload = self.inner.hold_reloads().await;
        let runtime = &self.inner.runtime();
        let mut roots: Vec<_> = runtime
            .routes
            .iter()
            .flat_map(|r| r.plan.app_values.iter().copied())
            .collect();
        roots.extend(layer::workers::worker_roots(&runtime.container));
        let started = async {
            layer::values::build_now(&runtime.container, &roots).await?;
            runtime.container.start_workers().await
        };
        let started = match tokio::time::timeout(self.inner.start_timeout, started).await {
            Ok(started) => started,
            // Past its budget: what was still building, and what each waited on, before they
            // are stopped (the close below disposes what was built).
            Err(_) => Err(layer::values::start_timed_out(
                &runtime.container,
                self.inner.start_timeout,
            )),
        };
        drop(no_reload);
        if let Err(error) = started {
            // The same close as `serve`'s after a failed start: the container is closed
            // already; this closes the app around it (503s, health, `is_closed`).
            if let Err(close) = self.close().await {
                tracing::error!(%close, "closing after the failed start failed too");
            }
            return Err(error);
        }
        self.inner.started.store(true, Ordering::Release);
        self.inner.begin_watching();
        layer::workers::health_changed(&runtime.container);
        Ok(())
    }

    /// Where the last successful start spent its time (`start()`, or `serve`'s): each build,
    /// when it began, how long it took and what it waited on, how many ran at once, and the
    /// critical path; `None` before a start built anything. `explain_all` and the explain
    /// page show it too, and the `start` span holds each build's `provide` span (see
    /// [`StartupReport`](green_tea_core::StartupReport)).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
    /// use std::time::Duration;
    /// use green_tea::{App, BoxError, ProviderFn};
    /// use green_tea::routing::Route;
    /// let pg = ProviderFn::new("pg", |_| async {
    ///     tokio::time::sleep(Duration::from_secs(1)).await;
    ///     Ok::<_, BoxError>(String::from("pool"))
    /// });
    /// let migrations = ProviderFn::new("migrations", |_| async {
    ///     tokio::time::sleep(Duration::from_secs(2)).await;
    ///     Ok::<_, BoxError>(3_u32)
    /// });
    /// let app = App::builder()
    ///     .provider(pg)
    ///     .provider(migrations.needs::<String>("pg"))
    ///     .route(Route::get("/", |_| async { "hi" }).needs::<u32>("migrations"))
    ///     .build()
    ///     .unwrap();
    /// assert!(app.startup().is_none());
    /// app.start().await.unwrap();
    /// let startup = app.startup().unwrap();
    /// assert_eq!(startup.critical_path_names(), ["pg", "migrations"]);
    /// assert_eq!(startup.took(), Duration::from_secs(3));
    /// # app.close().await.unwrap(); }
    /// ```
    pub fn startup(&self) -> Option<std::sync::Arc<green_tea_core::StartupReport>> {
        self.inner.runtime().container.startup()
    }

    /// Whether `close()` has begun.
    pub fn is_closed(&self) -> bool {
        *self.inner.runtime().shutdown.borrow()
    }

    /// What `build()` found suspicious but not wrong: discovery that found nothing, an app
    /// without routes. Each is also logged (`tracing`, WARN) when the app is built.
    pub fn warnings(&self) -> &[Warning] {
        &self.inner.warnings
    }
}

/// What the server and the tower service ask of the app, which they serve from above it.
impl App {
    /// Answers one request (see [`AppInner::dispatch`]).
    #[inline]
    pub(crate) fn dispatch<B, M>(
        &self,
        request: Request<B>,
        peer: Option<std::net::SocketAddr>,
        finish: M,
    ) -> DispatchFuture<RunFuture, M>
    where
        B: Into<crate::runtime::RequestBody>,
        M: Finish + Send + 'static,
    {
        self.inner.dispatch(request, peer, finish)
    }

    /// The app's global layers, if it has any.
    #[inline]
    pub(crate) fn layered(&self) -> Option<&Layered> {
        self.inner.layered.as_ref()
    }

    /// `request` through the app's global `layered`, measured around them.
    pub(crate) fn through_layers(
        &self,
        layered: Layered,
        request: Request<Body>,
    ) -> impl std::future::Future<Output = Reply> + Send + use<> {
        let inner = &self.inner;
        let matched = |method: &Method, path: &str| inner.matched(method, path);
        metered::AroundLayers::start(&inner.metrics, &request, matched).through(layered, request)
    }

    /// The request limits it was built with (every generation's).
    pub(crate) fn limits(&self) -> crate::limits::Limits {
        self.inner.runtime().limits
    }

    /// Says when `close()` begins.
    pub(crate) fn closing(&self) -> tokio::sync::watch::Receiver<bool> {
        self.inner.runtime().shutdown.subscribe()
    }

    /// How long `close()` waits for requests in flight.
    pub(crate) fn drain_timeout(&self) -> Duration {
        self.inner.drain_timeout
    }

    /// Whether a server keeps accepting connections while the app drains (to answer its
    /// health routes).
    pub(crate) fn answers_during_drain(&self) -> bool {
        self.inner.built_in.answers_during_drain()
    }

    /// Holds reloads off while a serve starts the workers.
    pub(crate) async fn hold_reloads(&self) -> tokio::sync::RwLockReadGuard<'_, ()> {
        self.inner.hold_reloads().await
    }

    /// For a `serve*` that handles signals: reloads on SIGHUP (if the app asked for it) until
    /// what it returns is dropped.
    pub(crate) fn reload_on_sighup(&self) -> StopOnDrop {
        StopOnDrop(self.inner.reload_on_sighup())
    }

    /// Being served: ready, for the readiness route.
    pub(crate) fn mark_served(&self) {
        self.inner.begin_watching();
        self.inner.started.store(true, Ordering::Release);
        layer::workers::health_changed(&self.inner.runtime().container);
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("routes", &self.inner.routes.len())
            .field("steps", &self.inner.runtime().steps.len())
            .field("closed", &self.is_closed())
            .finish()
    }
}
