//! `AppBuilder`: declare providers, steps, routes and modules; `build()` checks everything and
//! compiles each route into its plan.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum_core::body::Body;
use axum_core::response::IntoResponse;
use http::Request;
use tower::Layer;
use tower_service::Service;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::modules::ModuleIndex;
use green_tea_core::{ContainerBuilder, HealthCheck, Key, Location, Provider, TypeInfo};

use super::built_in::paths::{BuiltIn, HealthPaths};
use super::mount::Mount;
use crate::health::{CheckSetting, HealthSettings};
use crate::layer::{self as layers, ApplyLayer, Layered};
use crate::limits::Limits;
use green_tea_core::Module;

#[cfg(doc)]
use crate::module::ModuleExt;
use crate::module::{Served, ShutdownHook, take_served};
use crate::route::{Route, RouteRegistration};
use crate::step::{Step, StepRegistration};

/// Declares an app. [`build`](Self::build) checks the whole graph (providers, steps and routes
/// together) and constructs nothing.
#[must_use = "a builder does nothing until `build()`"]
pub struct AppBuilder {
    pub(super) container: ContainerBuilder,
    /// The steps, each with the module it was registered in.
    pub(super) steps: Vec<StepEntry>,
    pub(super) routes: Vec<Route>,
    /// The modules' shutdown hooks, in registration order, with their modules and paths.
    pub(super) shutdown: Vec<(ModuleIndex, Arc<str>, ShutdownHook)>,
    pub(super) limits: Limits,
    pub(super) drain_timeout: Duration,
    pub(super) start_timeout: Duration,
    pub(super) shutdown_timeout: Duration,
    pub(super) dispose_timeout: Duration,
    pub(super) layers: Vec<ApplyLayer>,
    /// The mounted services: checked against the routes at `build()`, then routed.
    pub(super) mounts: Vec<Mount>,
    pub(super) fallback: Option<Route>,
    /// Each `discover` call: the modules it was limited to, and how many steps and routes it
    /// found (the container counts the providers).
    pub(super) discovered: Vec<(Option<Vec<String>>, usize)>,
    /// The critical keys and health checks, checked at `build()`.
    pub(super) health: HealthSettings,
    /// The health routes and the explain page, if asked for.
    pub(super) built_in: BuiltIn,
    /// What starts a reload besides `App::reload()`.
    pub(super) reload_on: super::generations::ReloadOn,
}

/// A registered step: where it was registered, and the Rust module that declared it if
/// discovery added it.
pub(super) struct StepEntry {
    pub(super) step: Arc<dyn Step>,
    pub(super) module: Option<ModuleIndex>,
    pub(super) discovered_in: Option<&'static str>,
    /// The conditions it is on under, besides its own declaration's (a `when` it was
    /// registered in).
    pub(super) when: Vec<std::borrow::Cow<'static, str>>,
}

/// A Rust module's path (`module_path!()`).
type RustModule = &'static str;

/// A step discovery found, with the Rust module that declared it.
type DiscoveredStep = (Arc<dyn Step>, RustModule);

/// The steps and routes the macros declared in `modules` (all, if `None`), but not in
/// `claimed`, sorted by Rust module and name, each step with its Rust module.
fn discovered(modules: Option<&[&str]>, claimed: &[&str]) -> (Vec<DiscoveredStep>, Vec<Route>) {
    let wanted = |module: &str| {
        modules.is_none_or(|m| layer::build::in_modules(module, m))
            && !layer::build::in_modules(module, claimed)
    };
    let mut steps: Vec<&StepRegistration> = inventory::iter::<StepRegistration>
        .into_iter()
        .filter(|r| wanted(r.module))
        .collect();
    steps.sort_by_key(|r| (r.module, r.name));
    let mut routes: Vec<&RouteRegistration> = inventory::iter::<RouteRegistration>
        .into_iter()
        .filter(|r| wanted(r.module))
        .collect();
    routes.sort_by_key(|r| (r.module, r.name));
    let steps = steps
        .into_iter()
        .map(|r| (Arc::from((r.make)()), r.module))
        .collect();
    let routes = routes
        .into_iter()
        .map(|r| {
            let mut route = (r.make)();
            route.discovered_in = Some(r.module);
            route
        })
        .collect();
    (steps, routes)
}

/// How many steps and routes are registered in `modules` (all, if `None`).
fn linked(modules: Option<&[&str]>) -> usize {
    let wanted = |module: &str| modules.is_none_or(|m| layer::build::in_modules(module, m));
    let steps = inventory::iter::<StepRegistration>
        .into_iter()
        .filter(|r| wanted(r.module))
        .count();
    let routes = inventory::iter::<RouteRegistration>
        .into_iter()
        .filter(|r| wanted(r.module))
        .count();
    steps + routes
}

impl std::fmt::Debug for AppBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let steps: Vec<_> = self
            .steps
            .iter()
            .map(|s| s.step.descriptor().name)
            .collect();
        let shutdown: Vec<&str> = self.shutdown.iter().map(|(_, m, _)| &**m).collect();
        let mounts: Vec<&str> = self.mounts.iter().map(|m| &*m.prefix).collect();
        f.debug_struct("AppBuilder")
            .field("container", &self.container)
            .field("steps", &steps)
            .field("routes", &self.routes)
            .field("on_shutdown", &shutdown)
            .field("mounts", &mounts)
            .field("fallback", &self.fallback)
            .field("layers", &self.layers.len())
            .field("limits", &self.limits)
            .field("drain_timeout", &self.drain_timeout)
            .field("start_timeout", &self.start_timeout)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("dispose_timeout", &self.dispose_timeout)
            .finish_non_exhaustive()
    }
}

impl Default for AppBuilder {
    fn default() -> Self {
        AppBuilder::new()
    }
}

impl AppBuilder {
    /// The default time `start()` may take: 2 min. Four builds one after another, each near
    /// its own 30 s build timeout; a start longer than that is stuck, and an orchestrator's
    /// rollout deadline is longer still (Kubernetes' `progressDeadlineSeconds`: 10 min).
    pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(120);

    /// The default time `close()` waits for requests in flight: 30 s.
    pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(15);

    /// The default budget of a whole `close()`: 25 s, to end before the SIGKILL a default
    /// Kubernetes pod gets 30 s after its SIGTERM (`terminationGracePeriodSeconds`), with 5 s
    /// left for the process to exit. Of it, the drain takes at most its own 15 s, so that at
    /// least 10 s are left for the workers, the modules' hooks and the disposes (which flush).
    pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(25);

    /// An empty app.
    pub fn new() -> Self {
        AppBuilder {
            container: ContainerBuilder::new(),
            steps: Vec::new(),
            routes: Vec::new(),
            shutdown: Vec::new(),
            limits: Limits::default(),
            drain_timeout: Self::DEFAULT_DRAIN_TIMEOUT,
            start_timeout: Self::DEFAULT_START_TIMEOUT,
            shutdown_timeout: Self::DEFAULT_SHUTDOWN_TIMEOUT,
            dispose_timeout: ContainerBuilder::DEFAULT_DISPOSE_TIMEOUT,
            discovered: Vec::new(),
            layers: Vec::new(),
            mounts: Vec::new(),
            fallback: None,
            health: HealthSettings::default(),
            built_in: BuiltIn::default(),
            reload_on: Default::default(),
        }
    }

    /// Adds a provider: `name::provider()` for a `#[provider]` fn, a value of the type for a
    /// `#[provider]` impl block, or any [`Provider`].
    pub fn provider(mut self, provider: impl Provider) -> Self {
        self.container = self.container.provider(provider);
        self
    }

    /// Adds a ready value under `key`.
    #[track_caller]
    pub fn value<T: Send + Sync + 'static>(mut self, key: impl Into<Key>, value: T) -> Self {
        self.container = self.container.value(key, value);
        self
    }

    /// Where the settings types' values are read from at `build()` (without it, the process's
    /// environment; a second call is a problem at `build()`); see
    /// [`ContainerBuilder::settings`]. An unknown variable under a settings prefix is one of
    /// the app's [`warnings`](crate::App::warnings)
    /// ([`Warning::UnknownSetting`](crate::Warning)), or a problem with `Sources::strict()`.
    #[track_caller]
    pub fn settings(mut self, sources: green_tea_core::settings::Sources) -> Self {
        self.container = self.container.settings(sources);
        self
    }

    /// Replaces the provider of `key` with a ready value (tests); see
    /// [`ContainerBuilder::override_value`].
    #[track_caller]
    pub fn override_value<T: Send + Sync + 'static>(
        mut self,
        key: impl Into<Key>,
        value: T,
    ) -> Self {
        self.container = self.container.override_value(key, value);
        self
    }

    /// Replaces the providers of the keys `provider` provides (tests).
    pub fn override_provider(mut self, provider: impl Provider) -> Self {
        self.container = self.container.override_provider(provider);
        self
    }

    /// Adds a module: its providers, values, decorators, steps and routes, with keys of its
    /// own (`name::key`), private unless it exports them; its routes under its prefix; its
    /// `on_shutdown` hooks run on close. See [`Module`] and [`ModuleExt`].
    pub fn module(mut self, module: Module) -> Self {
        self.add_module(module, None, "");
        self
    }

    /// Replaces the registered module of `module`'s name (its providers, steps, routes and
    /// hooks, and its sub-modules') with `module`, for tests; see
    /// [`ContainerBuilder::override_module`]. The replacement is served under its own
    /// prefix: give it the one the app gives the original.
    #[track_caller]
    pub fn override_module(mut self, module: Module) -> Self {
        let gone =
            layer::modules::replace_module(&mut self.container, module.name(), Location::caller());
        let in_gone = |m: Option<ModuleIndex>| m.is_some_and(|m| gone.contains(&m));
        self.steps.retain(|s| !in_gone(s.module));
        self.routes.retain(|r| !in_gone(r.module));
        self.shutdown.retain(|(m, _, _)| !in_gone(Some(*m)));
        self.add_module(module, None, "");
        self
    }

    fn add_module(&mut self, mut module: Module, parent: Option<ModuleIndex>, prefix: &str) {
        let Served {
            steps,
            routes,
            prefix: own,
            on_shutdown,
        } = take_served(&mut module);
        let modules = layer::modules::take_modules(&mut module);
        let index = layer::modules::add_module(&mut self.container, module, parent);
        let path = layer::modules::module_path(&self.container, index);
        if !own.is_empty() && !own.starts_with('/') {
            layer::modules::module_problem(
                &mut self.container,
                index,
                format!("serves its routes under `{own}`: a prefix starts with `/` (`/{own}`)"),
            );
        }
        let prefix = format!("{prefix}{own}");
        let mut steps: Vec<StepEntry> = (steps.into_iter())
            .map(|(step, when)| StepEntry {
                step,
                module: Some(index),
                discovered_in: None,
                when,
            })
            .collect();
        let mut routes = routes;
        if let Some(paths) = layer::modules::module_discovers(&self.container, index) {
            // The module's own discovery: its Rust modules' steps and routes are its, and
            // what the app discovered from there already is taken back.
            let paths: Vec<String> = paths.to_vec();
            let claimed: Vec<&str> = paths.iter().map(String::as_str).collect();
            let in_claimed =
                |m: Option<&'static str>| m.is_some_and(|m| layer::build::in_modules(m, &claimed));
            self.steps
                .retain(|s| s.module.is_some() || !in_claimed(s.discovered_in));
            self.routes
                .retain(|r| r.module.is_some() || !in_claimed(r.discovered_in));
            let (found_steps, found_routes) = discovered(Some(&claimed), &[]);
            layer::modules::found_in_module(
                &mut self.container,
                index,
                found_steps.len() + found_routes.len(),
            );
            steps.extend(found_steps.into_iter().map(|(step, m)| StepEntry {
                step,
                module: Some(index),
                discovered_in: Some(m),
                when: Vec::new(),
            }));
            routes.extend(found_routes);
        }
        self.steps.extend(steps);
        for mut route in routes {
            if !prefix.is_empty() {
                let unnamed = route.name == format!("{} {}", route.method, route.path);
                route.path = match route.path.as_str() {
                    "/" | "" => prefix.clone(),
                    path => format!("{prefix}{path}"),
                };
                if unnamed {
                    // Named after where it is served, as a route outside a module is.
                    route.name = format!("{} {}", route.method, route.path).into();
                }
            }
            route.module = Some(index);
            self.routes.push(route);
        }
        self.shutdown.extend(
            on_shutdown
                .into_iter()
                .map(|hook| (index, Arc::clone(&path), hook)),
        );
        for sub in modules {
            self.add_module(sub, Some(index), &prefix);
        }
    }

    /// Adds a decorator of a key something else provides: `name::decorator()` for a
    /// `#[decorator]` fn, or any [`Provider`] that provides one key and needs it; see
    /// [`ContainerBuilder::decorator`].
    pub fn decorator(mut self, decorator: impl Provider) -> Self {
        self.container = self.container.decorator(decorator);
        self
    }

    /// Leaves out every decorator of `key` (tests); see
    /// [`ContainerBuilder::without_decorators`].
    #[track_caller]
    pub fn without_decorators(mut self, key: impl Into<Key>) -> Self {
        self.container = self.container.without_decorators(key);
        self
    }

    /// Adds a step: `name::step()` for a `#[step]` fn, or any [`Step`].
    pub fn step(mut self, step: impl Step) -> Self {
        self.steps.push(StepEntry {
            step: Arc::new(step),
            module: None,
            discovered_in: None,
            when: Vec::new(),
        });
        self
    }

    /// Adds a route.
    pub fn route(mut self, route: Route) -> Self {
        self.routes.push(route);
        self
    }

    /// Adds several routes (what `#[route]` generates as `Type::routes()`).
    pub fn routes(mut self, routes: impl IntoIterator<Item = Route>) -> Self {
        self.routes.extend(routes);
        self
    }

    /// Wraps the whole app in a tower `layer`: it sees every request, the 404s, the 405s and
    /// the 503s of a closing app included, before routing. Layers added later wrap those added
    /// before (the last one added sees the request first). Served by green-tea's own `serve`,
    /// which keeps its limits, drain and `close()`; [`Route::layer`] wraps one route.
    ///
    /// The layer's service takes `Request<Body>` (axum-core's body), answers with anything
    /// [`IntoResponse`](axum_core::response::IntoResponse), and does not fail: the bounds of
    /// axum's `Router::layer`, which every tower-http layer meets.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use green_tea::test::TestClient;
    /// use http::HeaderValue;
    /// use tower_http::set_header::SetResponseHeaderLayer;
    ///
    /// # #[tokio::main] async fn main() {
    /// let app = App::builder()
    ///     .route(Route::get("/", |_request: RequestContext| async { "hi" }))
    ///     .layer(SetResponseHeaderLayer::overriding(
    ///         http::header::SERVER,
    ///         HeaderValue::from_static("green-tea"),
    ///     ))
    ///     .build()
    ///     .unwrap();
    /// let client = TestClient::new(app);
    /// assert_eq!(client.get("/").send().await.header("server"), Some("green-tea"));
    /// assert_eq!(client.get("/nowhere").send().await.header("server"), Some("green-tea"));
    /// # }
    /// ```
    ///
    /// Each layer costs its own work and one boxed future per request it sees; an app
    /// without layers pays nothing for the feature.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<Layered> + Send + Sync + 'static,
        L::Service: Service<Request<Body>> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request<Body>>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request<Body>>>::Error: Into<Infallible> + 'static,
        <L::Service as Service<Request<Body>>>::Future: Send + 'static,
    {
        self.layers.push(layers::apply(layer));
        self
    }

    /// Mounts a tower `service` under `prefix` (`/static`): it answers every request to the
    /// prefix and below, whatever the method, its path without the prefix (`/static/app.css`
    /// reaches it as `/app.css`; the prefix itself, `/static` as `/static/`, as `/`, as under
    /// axum's `nest_service`). A route at or under the prefix,
    /// or a prefix with `{parameters}`, is a build error (GT0008). The service gets the body
    /// as it comes (no body limit: it reads what it wants); it runs inside the request's
    /// span and place in flight, under the app's global layers, and `explain` shows it.
    ///
    /// ```no_run
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use tower_http::services::ServeDir;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let app = App::builder()
    ///     .route(Route::get("/api/health", |_: RequestContext| async { "ok" }))
    ///     .nest_service("/static", ServeDir::new("public"))
    ///     .build()?;
    /// app.serve("127.0.0.1:8080").await?;
    /// # Ok(()) }
    /// ```
    #[track_caller]
    pub fn nest_service<S>(mut self, prefix: &str, service: S) -> Self
    where
        S: Service<Request<Body>> + Clone + Send + Sync + 'static,
        S::Response: IntoResponse + 'static,
        S::Error: Into<Infallible> + 'static,
        S::Future: Send + 'static,
    {
        self.mounts.push(Mount {
            prefix: prefix.trim_end_matches('/').to_owned(),
            location: Location::caller(),
            name: format!("mounted {}", layers::short_type_name::<S>()),
            service: layers::erase(service),
        });
        self
    }

    /// The route that answers when no path matches, made with [`Route::fallback`] (needs and
    /// steps as any route). A path that matches with another method stays a 405. Without
    /// one, an unknown path is green-tea's JSON 404. A second call replaces the first.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use green_tea::test::TestClient;
    ///
    /// # #[tokio::main] async fn main() {
    /// let app = App::builder()
    ///     .route(Route::get("/orders", |_: RequestContext| async { "orders" }))
    ///     .fallback(Route::fallback(|request: RequestContext| async move {
    ///         format!("nothing at {}", request.parts().uri.path())
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// let client = TestClient::new(app);
    /// assert_eq!(client.get("/nowhere").send().await.text(), "nothing at /nowhere");
    /// assert_eq!(client.delete("/orders").send().await.status(), 405);
    /// # }
    /// ```
    pub fn fallback(mut self, route: Route) -> Self {
        self.fallback = Some(route);
        self
    }

    /// Adds every provider, step and route declared with the macros in this binary, in a
    /// deterministic order (by module path, then name).
    ///
    /// Discovery finds what is linked into the binary: Rust does not link a library crate the
    /// binary never names, so declarations in a library are found only if the binary names
    /// it (`use my_lib as _;`, or a call to one of its functions). Discovery that finds
    /// nothing is a warning (see [`App::warnings`](crate::App::warnings)); the guide's "Project layout" shows the
    /// ways to lay out a library, a binary and tests.
    pub fn discover(self) -> Self {
        self.add_discovered(None)
    }

    /// Like [`discover`](Self::discover), but only what is declared in `modules` (crate or
    /// module paths, such as `env!("CARGO_CRATE_NAME")`) or inside them.
    pub fn discover_in(self, modules: &[&str]) -> Self {
        self.add_discovered(Some(modules))
    }

    fn add_discovered(mut self, modules: Option<&[&str]>) -> Self {
        self.container = match modules {
            Some(modules) => self.container.discover_in(modules),
            None => self.container.discover(),
        };
        let claimed = layer::build::claimed(&self.container);
        let (steps, routes) = discovered(modules, &claimed);
        // What is linked there, claimed by a module or not: the "found nothing" warning does
        // not depend on whether a module claimed it before or after.
        let found = linked(modules);
        self.steps
            .extend(steps.into_iter().map(|(step, rust_module)| StepEntry {
                step,
                module: None,
                discovered_in: Some(rust_module),
                when: Vec::new(),
            }));
        self.routes.extend(routes);
        let modules = modules.map(|m| m.iter().map(|s| (*s).to_owned()).collect());
        self.discovered.push((modules, found));
        self
    }

    /// The largest request body any route reads, unless the route sets its own (default 1 MiB).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.limits.body_bytes = bytes;
        self
    }

    /// Every request limit at once (body size and read time, head size, count and read time);
    /// see [`Limits`] for the defaults.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// How long `start()` may take as a whole (default: [`DEFAULT_START_TIMEOUT`], 2 min):
    /// every build it starts, and the workers' start. Past it, the start fails with
    /// [`ProvideError::StartTimedOut`](green_tea_core::ProvideError::StartTimedOut) (GT0107),
    /// which lists what was still building and what each waited on; those builds are stopped,
    /// what was built is disposed, dependents first, and the app is closed.
    ///
    /// [`DEFAULT_START_TIMEOUT`]: Self::DEFAULT_START_TIMEOUT
    pub fn start_timeout(mut self, timeout: Duration) -> Self {
        self.start_timeout = timeout;
        self
    }

    /// The budget of a whole `close()` (default:
    /// [`DEFAULT_SHUTDOWN_TIMEOUT`](Self::DEFAULT_SHUTDOWN_TIMEOUT), 25 s), shared by its
    /// phases in order: the drain, the workers' stop, the modules' hooks, the builds still in
    /// flight and the disposes. Each phase keeps its own cap (the drain timeout, the workers'
    /// stop timeout, the dispose timeout); each wait is its cap or what is left of the budget,
    /// whichever is shorter, so what a phase leaves unused goes to the next. A part the budget
    /// cuts is in the [`CloseError`](green_tea_core::CloseError) as
    /// [`FailureCause::OutOfBudget`](green_tea_core::FailureCause::OutOfBudget): which phase
    /// ran out. Set it a few seconds under your orchestrator's grace period (the serving guide
    /// has the settings for 30, 60 and 120 s).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Reloads the settings ([`App::reload`](crate::App::reload)) on each SIGHUP, while a
    /// `serve*` that handles signals runs (`serve`, `serve_listener`, `serve_tls`,
    /// `serve_unix`; not `serve_until`, whose program has its own signals). Without it a
    /// SIGHUP ends the process, as its default is; with it, SIGHUP is caught from the serve's
    /// call on for the process's life (tokio keeps a signal's handler), and does nothing once
    /// the serve has ended. Unix only (elsewhere it does nothing).
    pub fn reload_on_sighup(mut self) -> Self {
        self.reload_on.sighup = true;
        self
    }

    /// Reloads the settings ([`App::reload`](crate::App::reload)) when the settings file
    /// changes: from `start()` or the first serve on, the file `.settings(..)` names is read
    /// every `every` and a change applied once the file has stayed the same for one more
    /// read (so a save written in several steps, or two saves within one interval, make one
    /// reload). Polled, not watched through the OS: it sees a file replaced by a rename or
    /// behind a swapped symlink (a Kubernetes ConfigMap) as well as one written in place. A
    /// second is a good `every`; one under 10 ms is taken as 10 ms (zero would read the file
    /// in a loop). Sources without a file watch nothing (and say so, WARN).
    pub fn reload_on_file_change(mut self, every: Duration) -> Self {
        self.reload_on.file_every = Some(every.max(Self::MIN_FILE_POLL));
        self
    }

    /// The shortest interval [`reload_on_file_change`](Self::reload_on_file_change) polls at.
    const MIN_FILE_POLL: Duration = Duration::from_millis(10);

    /// How long `close()` waits for requests in flight before it disposes anyway (default
    /// 15 s; less if the shutdown's budget has less left).
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// How long each provider's `dispose` and each module's `on_shutdown` hook may run (default 10 s).
    pub fn dispose_timeout(mut self, timeout: Duration) -> Self {
        self.dispose_timeout = timeout;
        self
    }

    /// How long one build of a provider may take, unless it sets its own
    /// (`#[provider(timeout = "5s")]`, [`Provider::build_timeout`]). Default: 30 s; see
    /// [`ContainerBuilder::build_timeout`]. A build past it fails, naming the provider, its
    /// timeout and what needed it: in `start()`, the start fails (the other builds still
    /// running are stopped, and what was built is disposed); in a request, the request.
    pub fn build_timeout(mut self, timeout: Duration) -> Self {
        self.container = self.container.build_timeout(timeout);
        self
    }

    /// Serves the app's health at two paths, both `GET`, both JSON, both answered while the app
    /// drains (when every other request gets 503): `live` (liveness) is 200 until `close()`
    /// has finished, 503 after, with a JSON object of three booleans:
    ///
    /// | the app is | status | `live` | `draining` | `closed` |
    /// |---|---|---|---|---|
    /// | built, started or serving | 200 | `true` | `false` | `false` |
    /// | draining (`close()` has begun) | 200 | `true` | `true` | `false` |
    /// | closed (`close()` has finished) | 503 | `false` | `false` | `true` |
    ///
    /// `ready` (readiness) is 200 while
    /// the app is [ready](crate::AppHealth::ready) and 503 otherwise (while it drains, before
    /// `start()` has succeeded or serving has begun, while a [critical](Self::critical)
    /// provider's last build failed or an [async check](Self::async_health_check) of a
    /// critical key reports down, or while a critical worker is not running), with the whole
    /// [`App::health`](crate::App::health) as its body.
    ///
    /// The paths are answered before routing and before the app's layers' routes: a route at
    /// either path is a build error (GT0008). While they are set, a server keeps accepting
    /// connections during the drain, to answer them. Off by default.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use green_tea::test::TestClient;
    ///
    /// # #[tokio::main] async fn main() {
    /// let app = App::builder()
    ///     .route(Route::get("/", |_: RequestContext| async { "hi" }))
    ///     .health_routes("/healthz", "/readyz")
    ///     .build()
    ///     .unwrap();
    /// app.start().await.unwrap();
    /// let client = TestClient::new(app.clone());
    /// let live = client.get("/healthz").send().await;
    /// assert_eq!(live.status(), 200);
    /// assert_eq!(
    ///     live.json::<serde_json::Value>(),
    ///     serde_json::json!({"live": true, "draining": false, "closed": false})
    /// );
    /// let ready = client.get("/readyz").send().await;
    /// assert_eq!(ready.status(), 200);
    /// assert_eq!(ready.json::<serde_json::Value>()["ready"], true);
    /// app.close().await.unwrap();
    /// let live = client.get("/healthz").send().await;
    /// assert_eq!(live.status(), 503);
    /// assert_eq!(
    ///     live.json::<serde_json::Value>(),
    ///     serde_json::json!({"live": false, "draining": false, "closed": true})
    /// );
    /// # }
    /// ```
    #[track_caller]
    pub fn health_routes(mut self, live: &str, ready: &str) -> Self {
        self.built_in.health = Some(HealthPaths {
            live: live.to_owned(),
            ready: ready.to_owned(),
            location: Location::caller(),
        });
        self
    }

    /// Marks `key` critical: while the last build of its provider has failed, or while an
    /// [async health check](Self::async_health_check) of it reports down, the app is not ready
    /// (its readiness route answers 503). A key nothing provides is a build error (GT0009).
    /// (A worker is made critical on itself: [`WorkerOptions::critical`].)
    ///
    /// [`WorkerOptions::critical`]: green_tea_core::workers::WorkerOptions::critical
    #[track_caller]
    pub fn critical(mut self, key: impl Into<Key>) -> Self {
        self.health.critical.push((key.into(), Location::caller()));
        self
    }

    /// Asks the value under `key`, of type `T`, for its own state in [`App::health`](crate::App::health) (a
    /// circuit breaker's, for instance): see [`HealthCheck`]. The value is asked only while
    /// it is built, never built to be asked. A key nothing provides, or one of another type,
    /// is a build error (GT0009).
    #[track_caller]
    pub fn health_check<T: HealthCheck>(mut self, key: impl Into<Key>) -> Self {
        self.health.checks.push(CheckSetting {
            key: key.into(),
            location: Location::caller(),
            ty: TypeInfo::of::<T>(),
            ask: crate::health::ask::<T>,
        });
        self
    }

    /// Serves [`explain_all().to_html()`](crate::ExplainApp::to_html) at `path`: a page of
    /// every route with its chain as a picture, searchable, self-contained (no network).
    /// It shows the app's inside (keys, types, source locations): off by default, and best
    /// kept off a public listener. A route at `path` is a build error (GT0008).
    #[track_caller]
    pub fn explain_page(mut self, path: &str) -> Self {
        self.built_in.explain_page = Some((path.to_owned(), Location::caller()));
        self
    }
}
