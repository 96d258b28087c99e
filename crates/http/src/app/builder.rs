//! `AppBuilder`: declare providers, steps, routes and plugins; `build()` checks everything and
//! compiles each route into its plan.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum_core::body::Body;
use axum_core::response::IntoResponse;
use http::{HeaderValue, Request};
use tower::Layer;
use tower_service::Service;

use green_tea_core::__private::sibling::{self, IdVec, RequestScope, RouteId};
use green_tea_core::{
    BuildError, ContainerBuilder, Descriptor, HealthCheck, Key, KeySpec, Location, NodeKind,
    Origin, Problem, Provider, TypeInfo,
};

use super::built_in::{BuiltIn, HealthPaths};
use super::{App, AppInner, CompiledRoute, PathEntry};
use crate::client_addr::{ClientAddr, FromConnection};
use crate::health::{CheckSetting, HealthSettings};
use crate::layer::{self as layers, ApplyLayer, Dispatch, Layered, LayeredEntry};
use crate::limits::Limits;
use crate::plugin::{ErasedPlugin, Plugin};
use crate::route::{Mounted, Route, RouteRegistration, any_method};
use crate::runtime::{CompiledStep, Entry, RouteRun, Runtime};
use crate::step::{Step, StepRegistration};
use crate::warning::Warning;

/// Declares an app. [`build`](Self::build) checks the whole graph (providers, steps and routes
/// together) and constructs nothing.
#[must_use = "a builder does nothing until `build()`"]
pub struct AppBuilder {
    container: ContainerBuilder,
    steps: Vec<Arc<dyn Step>>,
    routes: Vec<Route>,
    plugins: Vec<Arc<dyn ErasedPlugin>>,
    limits: Limits,
    drain_timeout: Duration,
    dispose_timeout: Duration,
    layers: Vec<ApplyLayer>,
    /// The mounted services: checked against the routes at `build()`, then routed.
    mounts: Vec<Mount>,
    fallback: Option<Route>,
    /// Each `discover` call: the modules it was limited to, and how many steps and routes it
    /// found (the container counts the providers).
    discovered: Vec<(Option<Vec<String>>, usize)>,
    /// The critical keys and health checks, checked at `build()`.
    health: HealthSettings,
    /// The health routes and the explain page, if asked for.
    built_in: BuiltIn,
}

impl std::fmt::Debug for AppBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let steps: Vec<_> = self.steps.iter().map(|s| s.descriptor().name).collect();
        let plugins: Vec<_> = self.plugins.iter().map(|p| p.name()).collect();
        let mounts: Vec<&str> = self.mounts.iter().map(|m| &*m.prefix).collect();
        f.debug_struct("AppBuilder")
            .field("container", &self.container)
            .field("steps", &steps)
            .field("routes", &self.routes)
            .field("plugins", &plugins)
            .field("mounts", &mounts)
            .field("fallback", &self.fallback)
            .field("layers", &self.layers.len())
            .field("limits", &self.limits)
            .field("drain_timeout", &self.drain_timeout)
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
    /// The default time `close()` waits for requests in flight: 30 s.
    pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

    /// An empty app.
    pub fn new() -> Self {
        AppBuilder {
            container: ContainerBuilder::new(),
            steps: Vec::new(),
            routes: Vec::new(),
            plugins: Vec::new(),
            limits: Limits::default(),
            drain_timeout: Self::DEFAULT_DRAIN_TIMEOUT,
            dispose_timeout: ContainerBuilder::DEFAULT_DISPOSE_TIMEOUT,
            discovered: Vec::new(),
            layers: Vec::new(),
            mounts: Vec::new(),
            fallback: None,
            health: HealthSettings::default(),
            built_in: BuiltIn::default(),
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

    /// Adds a step: `name::step()` for a `#[step]` fn, or any [`Step`].
    pub fn step(mut self, step: impl Step) -> Self {
        self.steps.push(Arc::new(step));
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

    /// Registers a plugin: it adds what it brings now, and its `on_shutdown` runs on close.
    pub fn plugin(self, plugin: impl Plugin) -> Self {
        let plugin: Arc<dyn ErasedPlugin> = Arc::new(plugin);
        let mut this = plugin.register(self);
        this.plugins.push(plugin);
        this
    }

    /// Adds every provider, step and route declared with the macros in this binary, in a
    /// deterministic order (by module path, then name).
    ///
    /// Discovery finds what is linked into the binary: Rust does not link a library crate the
    /// binary never names, so declarations in a library are found only if the binary names
    /// it (`use my_lib as _;`, or a call to one of its functions). Discovery that finds
    /// nothing is a warning (see [`App::warnings`]); the guide's "Project layout" shows the
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
        let wanted = |module: &str| modules.is_none_or(|m| sibling::in_modules(module, m));
        self.container = match modules {
            Some(modules) => self.container.discover_in(modules),
            None => self.container.discover(),
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
        let found = steps.len() + routes.len();
        self.steps
            .extend(steps.into_iter().map(|r| Arc::from((r.make)())));
        self.routes.extend(routes.into_iter().map(|r| (r.make)()));
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

    /// How long `close()` waits for requests in flight before it disposes anyway (default 30 s).
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// How long each provider's `dispose` and each plugin's `on_shutdown` may run (default 10 s).
    pub fn dispose_timeout(mut self, timeout: Duration) -> Self {
        self.dispose_timeout = timeout;
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
    /// `start()` has succeeded or serving has begun, or while a [critical](Self::critical)
    /// provider's last build failed), with the whole [`App::health`] as its body.
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

    /// Marks `key` critical: while the last build of its provider has failed, the app is not
    /// ready (its readiness route answers 503). A key nothing provides is a build error
    /// (GT0009).
    #[track_caller]
    pub fn critical(mut self, key: impl Into<Key>) -> Self {
        self.health.critical.push((key.into(), Location::caller()));
        self
    }

    /// Asks the value under `key`, of type `T`, for its own state in [`App::health`] (a
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

    /// Checks everything at once (the graph with its steps and routes, unknown guard steps,
    /// conflicting routes) and compiles each route into its plan. Constructs nothing.
    pub fn build(self) -> Result<App, BuildError> {
        let warnings = self.warnings();
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        let mut problems = self.health.problems(&self.container);
        let mut scope = RequestScope::new();
        let descriptors: Vec<Descriptor> = self.steps.iter().map(|s| s.descriptor()).collect();
        let from_connection = self
            .needs_client_addr(&descriptors)
            .then(|| scope.add_step(FromConnection.descriptor(), Arc::new(FromConnection) as _));
        for (descriptor, step) in descriptors.into_iter().zip(self.steps) {
            scope.add_step(descriptor, step);
        }
        let mut table = RouteTable::default();
        mount_problems(&self.mounts, &self.routes, &mut problems);
        let mut routes = self.routes;
        routes.extend(self.mounts.iter().flat_map(Mount::routes));
        let fallback = self.fallback.map(|route| {
            let (descriptor, guards) = (route.descriptor(), route.steps.clone());
            scope.add_route(descriptor, guards, route)
        });
        for route in routes {
            let (descriptor, guards) = (route.descriptor(), route.steps.clone());
            let (method, path, origin) = (
                route.method.clone(),
                route.path.clone(),
                route_origin(&route),
            );
            let id = scope.add_route(descriptor, guards, route);
            table.add(id, method, path, origin, &mut problems);
        }
        let (router, paths) = table.finish();
        built_in_problems(&self.built_in, &router, &mut problems);
        let container = self.container.dispose_timeout(self.dispose_timeout);
        let wired = match sibling::build_scope(container, scope) {
            Ok(wired) if problems.is_empty() => wired,
            Ok(_) => return Err(sibling::build_error(problems)),
            Err(error) => {
                problems.extend(error.into_problems());
                return Err(sibling::build_error(problems));
            }
        };

        let health = self.health.compile(&wired.container);
        let steps = wired.steps.map(|id, s| CompiledStep {
            from_connection: Some(id) == from_connection,
            step: s.step,
            descriptor: s.descriptor,
        });
        let app_body_limit = self.limits.body_bytes;
        let (shutdown, _) = tokio::sync::watch::channel(false);
        // Outermost first: the last one added.
        let app_layer_names: Vec<String> =
            self.layers.iter().rev().map(|l| l.name.clone()).collect();
        #[cfg(feature = "metrics")]
        let metrics = Arc::new(super::metered::AppMetrics::register(
            wired.routes.iter().map(|r| r.route.path.as_str()),
            paths.iter().map(|p| p.template.as_str()),
            &self.built_in,
        ));
        // Layers are applied here, once: their innermost services reach the app (or the
        // route's runtime) through a weak reference (the app holds its layers).
        let mut compiled = IdVec::with_capacity(wired.routes.len());
        let runtime = Arc::new_cyclic(|runtime: &Weak<Runtime>| {
            let routes = wired.routes.map(|id, mut r| {
                let route_layers = std::mem::take(&mut r.route.layers);
                let layer_names = app_layer_names
                    .iter()
                    .map(|name| format!("{name} (app)"))
                    .chain(route_layers.iter().rev().map(|l| l.name.clone()))
                    .collect();
                compiled.push(CompiledRoute {
                    layer_names,
                    method: r.route.method,
                    template: r.route.path,
                    name: r.route.name,
                });
                let layered = (!route_layers.is_empty()).then(|| {
                    let inner = layers::route_entry(runtime.clone(), id);
                    let layered = layers::stack(inner, route_layers);
                    Arc::new(LayeredEntry(layered)) as Arc<dyn Entry>
                });
                RouteRun {
                    descriptor: r.descriptor,
                    entry: r.route.entry,
                    layered,
                    plan: r.plan,
                    ready: Default::default(),
                    body_limit: r.route.body_limit.unwrap_or(app_body_limit),
                }
            });
            Runtime {
                container: wired.container,
                routes,
                steps,
                in_flight: Default::default(),
                shutdown,
                limits: self.limits,
            }
        });
        let inner = Arc::new_cyclic(|app: &Weak<AppInner>| AppInner {
            runtime,
            router,
            paths,
            routes: compiled,
            plugins: self.plugins,
            close_outcome: Default::default(),
            drain_timeout: self.drain_timeout,
            dispose_timeout: self.dispose_timeout,
            warnings,
            fallback,
            layered: (!self.layers.is_empty()).then(|| {
                let app: Weak<dyn Dispatch> = app.clone();
                layers::stack(layers::app_entry(app), self.layers)
            }),
            health,
            built_in: self.built_in,
            started: Default::default(),
            #[cfg(feature = "metrics")]
            metrics,
        });
        Ok(App { inner })
    }

    /// Whether a step, a route or the fallback needs `clientAddr` and no step of the user's
    /// provides it: then the app gets the step that provides it from the connection.
    fn needs_client_addr(&self, descriptors: &[Descriptor]) -> bool {
        let key = |spec: &KeySpec| spec.key.as_str() == ClientAddr::KEY;
        let needed = descriptors.iter().any(|d| d.needs.iter().any(key))
            || self
                .routes
                .iter()
                .chain(self.fallback.as_ref())
                .any(|r| r.needs.iter().any(key));
        needed && !descriptors.iter().any(|d| d.provides.iter().any(key))
    }

    fn warnings(&self) -> Vec<Warning> {
        let mut warnings = Vec::new();
        let providers = sibling::discovered(&self.container);
        for ((modules, found), providers) in self.discovered.iter().zip(providers) {
            if found + providers == 0 {
                warnings.push(Warning::DiscoveredNothing {
                    modules: modules.clone(),
                });
            }
        }
        if self.routes.is_empty() && self.mounts.is_empty() && self.fallback.is_none() {
            warnings.push(Warning::NoRoutes);
        }
        warnings
    }
}

/// A built-in route (health, explain page) whose path is not a plain absolute path, is
/// another built-in's, or is a route's (GT0008).
fn built_in_problems(
    built_in: &BuiltIn,
    router: &matchit::Router<usize>,
    problems: &mut Vec<Problem>,
) {
    let paths = built_in.paths();
    for (i, (path, name, location)) in paths.iter().enumerate() {
        let origin = Origin {
            kind: NodeKind::Route,
            name: name.clone(),
            location: *location,
        };
        let reason = if !path.starts_with('/') || path.contains(['{', '}', '?', '#']) {
            format!("a built-in route's path is a plain path starting with `/`: `{path}`")
        } else if let Some((_, other, _)) = paths[..i].iter().find(|(p, ..)| p == path) {
            format!("{other} is at the same path")
        } else if router.at(path).is_ok() {
            format!("a route already serves {path}")
        } else {
            continue;
        };
        problems.push(Problem::RouteConflict {
            route: origin,
            reason,
        });
    }
}

/// A mount whose prefix has parameters, and every route at or under a mount's prefix
/// (matchit would let the more specific route win; green-tea refuses the ambiguity).
fn mount_problems(mounts: &[Mount], routes: &[Route], problems: &mut Vec<Problem>) {
    for Mount {
        prefix, location, ..
    } in mounts
    {
        let mount = Origin {
            kind: NodeKind::Route,
            name: format!("the service mounted at {}", display_prefix(prefix)),
            location: *location,
        };
        if prefix.is_empty() {
            problems.push(Problem::RouteConflict {
                route: mount.clone(),
                reason: "a service mounted at `/` would take every path: answer the paths no \
                         route matches with `AppBuilder::fallback` instead"
                    .to_owned(),
            });
            continue;
        }
        if prefix.contains(['{', '}']) || !prefix.starts_with('/') {
            problems.push(Problem::RouteConflict {
                route: mount.clone(),
                reason: format!(
                    "a mount's prefix is a plain path starting with `/`, without parameters: `{prefix}`"
                ),
            });
            continue;
        }
        let under = |path: &str| {
            path == prefix
                || path
                    .strip_prefix(prefix.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        };
        for route in routes {
            if under(&route.path) {
                problems.push(Problem::RouteConflict {
                    route: route_origin(route),
                    reason: format!(
                        "{} is under {}, mounted at {}",
                        route.path, mount.name, location
                    ),
                });
            }
        }
        for other in mounts.iter().map(|m| &m.prefix) {
            if other != prefix && under(other) {
                problems.push(Problem::RouteConflict {
                    route: mount.clone(),
                    reason: format!(
                        "the service mounted at {} is under it",
                        display_prefix(other)
                    ),
                });
            }
        }
    }
}

/// A tower service mounted under a prefix (without its trailing `/`).
struct Mount {
    prefix: String,
    location: Location,
    name: String,
    service: Layered,
}

impl Mount {
    /// The routes it answers: for every method, the prefix itself, the prefix with a trailing
    /// `/` (what a browser asks for a directory; matchit's `{*rest}` needs at least one
    /// character after it) and everything under it. Both of the first two reach the service
    /// as `/`, as under axum's `nest_service`.
    fn routes(&self) -> impl Iterator<Item = Route> + '_ {
        let at = |path: String| {
            Route::any(
                path,
                Mounted {
                    prefix: self.prefix.clone(),
                    service: self.service.clone(),
                },
            )
            .named(self.name.clone())
            .at(self.location)
        };
        [
            self.prefix.clone(),
            format!("{}/", self.prefix),
            format!("{}/{{*rest}}", self.prefix),
        ]
        .into_iter()
        .filter(|path| !path.is_empty()) // a mount at `/` is an error of its own
        .map(at)
    }
}

fn display_prefix(prefix: &str) -> &str {
    if prefix.is_empty() { "/" } else { prefix }
}

fn route_origin(route: &Route) -> Origin {
    Origin {
        kind: NodeKind::Route,
        name: route.title(),
        location: route.location,
    }
}

/// The matchit router over path templates, and per template the routes by method. Two routes
/// with one method and path, or templates matchit cannot tell apart, are GT0008.
#[derive(Default)]
struct RouteTable {
    router: matchit::Router<usize>,
    paths: Vec<PathEntry>,
    by_template: HashMap<String, usize>,
    origins: HashMap<RouteId, Origin>,
}

impl RouteTable {
    fn add(
        &mut self,
        id: RouteId,
        method: http::Method,
        path: String,
        origin: Origin,
        problems: &mut Vec<Problem>,
    ) {
        let entry = match self.by_template.get(&path) {
            Some(&entry) => entry,
            None => {
                if let Err(error) = self.router.insert(path.clone(), self.paths.len()) {
                    problems.push(Problem::RouteConflict {
                        route: origin,
                        reason: error.to_string(),
                    });
                    return;
                }
                self.by_template.insert(path.clone(), self.paths.len());
                self.paths.push(PathEntry {
                    template: path.clone(),
                    methods: Vec::new(),
                    allow: HeaderValue::from_static(""),
                    any: None,
                });
                self.paths.len() - 1
            }
        };
        let methods = &mut self.paths[entry].methods;
        if let Some(&(_, first)) = methods.iter().find(|(m, _)| *m == method) {
            let first = &self.origins[&first];
            problems.push(Problem::RouteConflict {
                reason: format!(
                    "{method} {path} is already routed to {} ({})",
                    first.name, first.location
                ),
                route: origin,
            });
            return;
        }
        if method == any_method() {
            self.paths[entry].any = Some(id);
        }
        self.paths[entry].methods.push((method, id));
        self.origins.insert(id, origin);
    }

    fn finish(mut self) -> (matchit::Router<usize>, Vec<PathEntry>) {
        for path in &mut self.paths {
            let mut allow: Vec<&str> = path
                .methods
                .iter()
                .map(|(m, _)| m.as_str())
                .filter(|m| *m != "ANY")
                .collect();
            // A GET route also serves HEAD (see `PathEntry::route_for`).
            if allow.contains(&"GET") && !allow.contains(&"HEAD") {
                allow.push("HEAD");
            }
            path.allow = HeaderValue::from_str(&allow.join(", "))
                .expect("method names are valid header text");
        }
        (self.router, self.paths)
    }
}

impl Route {
    /// `POST /orders -> Orders::create`, or just `POST /orders` when the route has no other
    /// name.
    pub(crate) fn title(&self) -> String {
        let head = format!("{} {}", self.method, self.path);
        if self.name == head {
            head
        } else {
            format!("{head} -> {}", self.name)
        }
    }

    /// The handler's declaration: its name, its needs, where it was declared.
    fn descriptor(&self) -> Descriptor {
        let mut descriptor = Descriptor::new(self.title()).at(self.location);
        descriptor.needs = self.needs.clone();
        descriptor
    }
}
