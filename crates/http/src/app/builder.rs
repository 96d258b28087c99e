//! `AppBuilder`: declare providers, steps, routes and plugins; `build()` checks everything and
//! compiles each route into its plan.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use http::HeaderValue;

use green_tea_core::{
    BuildError, ContainerBuilder, Declaration, Key, KeySpec, Needs, NodeKind, Origin, Problem,
    Provider, ProviderDescriptor, Source, Wiring, closest, in_modules,
};

use super::{App, AppInner, CompiledRoute, PathEntry, PlannedStep, StepInfo, ValueSource};
use crate::limits::Limits;
use crate::plugin::Plugin;
use crate::route::{Route, RouteRegistration};
use crate::step::{Step, StepRegistration};

/// Declares an app. [`build`](Self::build) checks the whole graph (providers, steps and routes
/// together) and constructs nothing.
#[must_use = "a builder does nothing until `build()`"]
pub struct AppBuilder {
    container: ContainerBuilder,
    steps: Vec<Arc<dyn Step>>,
    routes: Vec<Route>,
    plugins: Vec<Arc<dyn Plugin>>,
    limits: Limits,
    drain_timeout: Duration,
    dispose_timeout: Duration,
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
        }
    }

    /// Adds a provider.
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

    /// Adds a step.
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

    /// Registers a plugin: it adds what it brings now, and its `on_shutdown` runs on close.
    pub fn plugin(self, plugin: impl Plugin) -> Self {
        let plugin: Arc<dyn Plugin> = Arc::new(plugin);
        let mut this = plugin.register(self);
        this.plugins.push(plugin);
        this
    }

    /// Adds every provider, step and route declared with the macros in this binary, in a
    /// deterministic order (by module path, then name).
    pub fn discover(self) -> Self {
        self.add_discovered(None)
    }

    /// Like [`discover`](Self::discover), but only what is declared in `modules` (crate or
    /// module paths, such as `env!("CARGO_CRATE_NAME")`) or inside them.
    pub fn discover_in(self, modules: &[&str]) -> Self {
        self.add_discovered(Some(modules))
    }

    fn add_discovered(mut self, modules: Option<&[&str]>) -> Self {
        let wanted = |module: &str| modules.is_none_or(|m| in_modules(module, m));
        self.container = match modules {
            Some(modules) => self.container.discover_in(modules),
            None => self.container.discover(),
        };
        let mut steps: Vec<&StepRegistration> = inventory::iter::<StepRegistration>
            .into_iter()
            .filter(|r| wanted(r.module))
            .collect();
        steps.sort_by_key(|r| (r.module, r.name));
        self.steps
            .extend(steps.into_iter().map(|r| Arc::from((r.make)())));
        let mut routes: Vec<&RouteRegistration> = inventory::iter::<RouteRegistration>
            .into_iter()
            .filter(|r| wanted(r.module))
            .collect();
        routes.sort_by_key(|r| (r.module, r.name));
        self.routes.extend(routes.into_iter().map(|r| (r.make)()));
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

    /// Checks everything at once (the core's checks, unknown guard steps, conflicting routes)
    /// and compiles each route into its plan. Constructs nothing.
    pub fn build(self) -> Result<App, BuildError> {
        let steps: Vec<StepInfo> = self
            .steps
            .into_iter()
            .map(|step| {
                let d = step.descriptor();
                let need_specs: Arc<[KeySpec]> = d.needs.into();
                StepInfo {
                    name: d.name.to_string(),
                    provides: d.provides.into(),
                    need_specs,
                    location: d.location,
                    checked: cfg!(debug_assertions) || !step.returns_declared_types(),
                    step,
                }
            })
            .collect();
        let declaration =
            |kind, name: String, provides: &[KeySpec], needs: &[KeySpec], location| {
                let mut descriptor = ProviderDescriptor::new(name).at(location);
                descriptor.provides = provides.to_vec();
                descriptor.needs = needs.to_vec();
                Declaration { kind, descriptor }
            };
        let mut declarations: Vec<Declaration> = steps
            .iter()
            .map(|s| {
                let (provides, needs) = (&s.provides, &s.need_specs);
                declaration(NodeKind::Step, s.name.clone(), provides, needs, s.location)
            })
            .collect();
        declarations.extend(
            self.routes
                .iter()
                .map(|r| declaration(NodeKind::Route, route_title(r), &[], &r.needs, r.location)),
        );

        let mut problems = Vec::new();
        let guards = resolve_guards(&self.routes, &steps, &mut problems);
        let (router, paths) = route_table(&self.routes, &mut problems);

        let built = self
            .container
            .dispose_timeout(self.dispose_timeout)
            .build_with(declarations);
        let (container, wiring) = match built {
            Ok(ok) if problems.is_empty() => ok,
            Ok(_) => return Err(BuildError::from_problems(problems)),
            Err(error) => {
                problems.extend(error.into_problems());
                return Err(BuildError::from_problems(problems));
            }
        };

        let routes = self
            .routes
            .into_iter()
            .zip(guards)
            .enumerate()
            .map(|(i, (route, guards))| {
                compile(
                    route,
                    steps.len() + i,
                    &guards,
                    &steps,
                    &wiring,
                    self.limits.body_bytes,
                )
            })
            .collect();

        let (shutdown, _) = tokio::sync::watch::channel(false);
        Ok(App {
            inner: Arc::new(AppInner {
                container,
                router,
                paths,
                routes,
                steps,
                plugins: self.plugins,
                in_flight: Default::default(),
                shutdown,
                close_outcome: Default::default(),
                drain_timeout: self.drain_timeout,
                limits: self.limits,
                dispose_timeout: self.dispose_timeout,
                no_needs: Needs::new(Arc::from(Vec::new()), Vec::new()),
            }),
        })
    }
}

/// `POST /orders -> Orders::create`, or just `POST /orders` when the route has no other name.
fn route_title(route: &Route) -> String {
    let head = format!("{} {}", route.method, route.path);
    if route.name == head {
        head
    } else {
        format!("{head} -> {}", route.name)
    }
}

fn route_origin(route: &Route) -> Origin {
    Origin {
        kind: NodeKind::Route,
        name: route_title(route),
        location: route.location,
    }
}

/// For each route, the indices of the steps it names as guards; an unknown name is GT0007.
fn resolve_guards(
    routes: &[Route],
    steps: &[StepInfo],
    problems: &mut Vec<Problem>,
) -> Vec<Vec<usize>> {
    let by_name: HashMap<&str, usize> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let mut names: Vec<&str> = by_name.keys().copied().collect();
    names.sort_unstable();
    routes
        .iter()
        .map(|route| {
            route
                .steps
                .iter()
                .filter_map(|name| match by_name.get(name.as_ref()) {
                    Some(&i) => Some(i),
                    None => {
                        problems.push(Problem::UnknownStep {
                            step: name.to_string(),
                            route: route_origin(route),
                            suggestion: closest(name, names.iter(), |n| n).map(|n| n.to_string()),
                        });
                        None
                    }
                })
                .collect()
        })
        .collect()
}

/// The matchit router over path templates, and per template the routes by method. Two routes
/// with one method and path, or templates matchit cannot tell apart, are GT0008.
fn route_table(
    routes: &[Route],
    problems: &mut Vec<Problem>,
) -> (matchit::Router<usize>, Vec<PathEntry>) {
    let mut router = matchit::Router::new();
    let mut paths: Vec<PathEntry> = Vec::new();
    let mut by_template: HashMap<&str, usize> = HashMap::new();
    for (index, route) in routes.iter().enumerate() {
        let entry = match by_template.get(route.path.as_str()) {
            Some(&entry) => entry,
            None => {
                if let Err(error) = router.insert(route.path.clone(), paths.len()) {
                    problems.push(Problem::RouteConflict {
                        route: route_origin(route),
                        reason: error.to_string(),
                    });
                    continue;
                }
                by_template.insert(&route.path, paths.len());
                paths.push(PathEntry {
                    template: route.path.clone(),
                    methods: Vec::new(),
                    allow: HeaderValue::from_static(""),
                });
                paths.len() - 1
            }
        };
        let path = &mut paths[entry];
        if let Some(&(_, first)) = path.methods.iter().find(|(m, _)| *m == route.method) {
            let first = route_origin(&routes[first]);
            problems.push(Problem::RouteConflict {
                route: route_origin(route),
                reason: format!(
                    "{} {} is already routed to {} ({})",
                    route.method, route.path, first.name, first.location
                ),
            });
            continue;
        }
        path.methods.push((route.method.clone(), index));
    }
    for path in &mut paths {
        let mut allow: Vec<&str> = path.methods.iter().map(|(m, _)| m.as_str()).collect();
        // A GET route also serves HEAD (see `PathEntry::route_for`).
        if allow.contains(&"GET") && !allow.contains(&"HEAD") {
            allow.push("HEAD");
        }
        path.allow =
            HeaderValue::from_str(&allow.join(", ")).expect("method names are valid header text");
    }
    (router, paths)
}

/// One route's plan: the steps it runs (what its handler and guards need, transitively, in
/// graph order), where each of their needs comes from, and the provider values it reads.
fn compile(
    route: Route,
    decl: usize,
    guards: &[usize],
    steps: &[StepInfo],
    wiring: &Wiring,
    app_body_limit: usize,
) -> CompiledRoute {
    let mut runs: Vec<usize> = wiring.runs_before(decl);
    for &guard in guards {
        runs.extend(wiring.runs_before(guard));
        runs.push(guard);
    }
    let position: HashMap<usize, usize> = wiring
        .order
        .iter()
        .enumerate()
        .map(|(p, &d)| (d, p))
        .collect();
    runs.sort_by_key(|d| position[d]);
    runs.dedup();

    // Each step's values go to the request's locals, in run order.
    let mut local_base: HashMap<usize, usize> = HashMap::new();
    let mut local_count = 0;
    for &step in &runs {
        local_base.insert(step, local_count);
        local_count += steps[step].provides.len();
    }
    let mut app_values = Vec::new();
    let mut source = |s: &Source| match *s {
        Source::App(v) => {
            app_values.push(v);
            ValueSource::App(v)
        }
        Source::Request { decl, index } => ValueSource::Local(local_base[&decl] + index),
    };
    let planned: Box<[PlannedStep]> = runs
        .iter()
        .map(|&step| PlannedStep {
            step,
            needs: wiring.needs[step].iter().map(&mut source).collect(),
        })
        .collect();
    let needs: Box<[ValueSource]> = wiring.needs[decl].iter().map(&mut source).collect();
    app_values.dedup();

    CompiledRoute {
        template: route.path.clone(),
        name: route.name.to_string(),
        method: route.method,
        location: route.location,
        handler: route.handler,
        steps: planned,
        local_count,
        needs,
        need_specs: route.needs.into(),
        app_values: app_values.into(),
        body_limit: route.body_limit.unwrap_or(app_body_limit),
    }
}
