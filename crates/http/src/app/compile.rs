//! `AppBuilder::build`: check everything at once and compile the app: the route table
//! (matchit, per path the routes by method), the mounts' and built-in routes' checks, each
//! route's plan and run, the layers applied once.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use http::HeaderValue;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::build::RequestDecls;
use green_tea_core::__private::layer::values::{IdVec, RouteId, StepId};
use green_tea_core::{BuildError, Descriptor, KeySpec, NodeKind, Origin, Problem};

use super::built_in::paths::BuiltIn;
use super::{App, AppInner, CompiledRoute, PathEntry};
use crate::client_addr::{ClientAddr, FromConnection};
use crate::finish::Finishing;
use crate::layer::{self as layers, Dispatch, LayeredEntry};
use crate::route::{Route, any_method};
use crate::runtime::{CompiledStep, Entry, RouteRun, Runtime};
use crate::step::Step;
use crate::warning::Warning;

use super::builder::AppBuilder;
use super::mount::Mount;

impl AppBuilder {
    /// Checks everything at once (the graph with its steps and routes, unknown guard steps,
    /// conflicting routes) and compiles each route into its plan. Constructs nothing.
    pub fn build(mut self) -> Result<App, BuildError> {
        let mut warnings = self.warnings();
        warnings.extend(
            layer::build::take_settings_warnings(&mut self.container)
                .into_iter()
                .map(Warning::UnknownSetting),
        );
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        let mut problems = self.health.problems(&self.container);
        let mut scope = RequestDecls::new();
        let descriptors: Vec<Descriptor> = self.steps.iter().map(|s| s.step.descriptor()).collect();
        // Each step's finishing, asked once and checked against what it provides, by id.
        let mut finishing: IdVec<StepId, Finishing> = IdVec::new();
        let from_connection = self.needs_client_addr(&descriptors).then(|| {
            finishing.push(Finishing::none());
            scope.add_step(FromConnection.descriptor(), Arc::new(FromConnection) as _)
        });
        for (mut descriptor, entry) in descriptors.into_iter().zip(self.steps) {
            descriptor.when.extend(entry.when);
            let finishes = entry.step.finishing();
            problems.extend(finishes.problems(&descriptor));
            finishing.push(finishes);
            scope.add_step_in(descriptor, entry.step, entry.module);
        }
        let mut table = RouteTable::default();
        mount_problems(&self.mounts, &self.routes, &mut problems);
        let mut routes = self.routes;
        routes.extend(self.mounts.iter().flat_map(Mount::routes));
        let fallback = self.fallback.map(|route| {
            let (descriptor, guards, module) =
                (route.descriptor(), route.steps.clone(), route.module);
            scope.add_route_in(descriptor, guards, route, module)
        });
        let mut conflicts = Vec::new();
        for route in routes {
            let (descriptor, guards) = (route.descriptor(), route.steps.clone());
            let (method, path, origin) = (
                route.method.clone(),
                route.path.clone(),
                route_origin(&route),
            );
            let module = route.module;
            let id = scope.add_route_in(descriptor, guards, route, module);
            table.add(id, method, path, origin, &mut conflicts);
        }
        // Two routes the router cannot tell apart are a problem where both are served (with
        // switches, not every shape serves every route).
        for (route, others, problem) in conflicts {
            match others.is_empty() {
                true => problems.push(problem),
                false => scope.add_conflict(route, others, problem),
            }
        }
        built_in_problems(&self.built_in, &table.router, &mut problems);
        let container = self.container.dispose_timeout(self.dispose_timeout);
        let wired = match layer::build::build_scope(container, scope) {
            Ok(wired) if problems.is_empty() => wired,
            Ok(_) => return Err(layer::build::build_error(problems)),
            Err(error) => {
                problems.extend(error.into_problems());
                return Err(layer::build::build_error(problems));
            }
        };
        // Today's routes only: a route that is off is not routed (its path answers as if it
        // were never registered).
        if wired.routes.iter().any(|r| !r.on) {
            table = RouteTable::default();
            let on = (wired.routes.iter_enumerated()).filter(|(_, r)| r.on);
            for (id, r) in on.filter(|(id, _)| Some(*id) != fallback) {
                let origin = route_origin(&r.route);
                let (method, path) = (r.route.method.clone(), r.route.path.clone());
                table.add(id, method, path, origin, &mut Vec::new());
            }
        }
        let fallback = fallback.filter(|&id| wired.routes[id].on);
        let (router, paths) = table.finish();

        let health = self.health.compile(&wired.container);
        // The hooks of the modules on today.
        let hooks: Vec<_> = (self.shutdown.into_iter())
            .filter(|(module, ..)| layer::modules::module_on(&wired.container, *module))
            .map(|(_, path, hook)| (path, hook))
            .collect();
        let steps = wired.steps.map(|id, s| CompiledStep {
            from_connection: Some(id) == from_connection,
            finishing: std::mem::take(&mut finishing[id]),
            step: s.step,
            descriptor: s.descriptor,
            module: s.module,
            on: s.on,
        });
        let app_body_limit = self.limits.body_bytes;
        let (shutdown, _) = tokio::sync::watch::channel(false);
        // Outermost first: the last one added.
        let app_layer_names: Vec<String> =
            self.layers.iter().rev().map(|l| l.name.clone()).collect();
        let metrics = Arc::new(super::metered::AppMetrics::register(
            wired.routes.iter().map(|r| r.route.path.as_str()),
            paths.iter().map(|p| p.template.as_str()),
            &self.built_in,
        ));
        // Layers are applied here, once: the app's innermost service reaches the app through a
        // weak reference (the app holds its layers); a route's, the generation its request
        // brings.
        let mut compiled = IdVec::with_capacity(wired.routes.len());
        let runtime = Arc::new_cyclic(|serving: &Weak<arc_swap::ArcSwap<Runtime>>| {
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
                    module: r.module,
                    on: r.on,
                });
                let layered = (!route_layers.is_empty()).then(|| {
                    let inner = layers::route_entry(serving.clone(), id);
                    let layered = layers::stack(inner, route_layers);
                    Arc::new(LayeredEntry(layered)) as Arc<dyn Entry>
                });
                // A route that runs a finishing step gets the entry that finishes; every
                // other route keeps the plain one, and pays nothing for them.
                let finishes = r
                    .plan
                    .steps
                    .iter()
                    .any(|planned| !steps[planned.step].finishing.is_empty());
                let entry = match finishes {
                    true => r.route.entry.finishing().unwrap_or(r.route.entry),
                    false => r.route.entry,
                };
                RouteRun {
                    descriptor: r.descriptor,
                    entry,
                    layered,
                    plan: r.plan,
                    ready: Default::default(),
                    body_limit: r.route.body_limit.unwrap_or(app_body_limit),
                }
            });
            arc_swap::ArcSwap::from_pointee(Runtime {
                container: wired.container,
                routes,
                steps,
                in_flight: Default::default(),
                shutdown: Arc::new(shutdown),
                limits: self.limits,
            })
        });
        let inner = Arc::new_cyclic(|app: &Weak<AppInner>| AppInner {
            runtime,
            reloads: Default::default(),
            reload_on: self.reload_on,
            watching: Default::default(),
            router,
            paths,
            routes: compiled,
            shutdown: std::sync::Mutex::new(hooks),
            close_outcome: Default::default(),
            drain_timeout: self.drain_timeout,
            start_timeout: self.start_timeout,
            shutdown_timeout: self.shutdown_timeout,
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
        // A step of the app's own provides it in its place; a module's step provides the
        // module's `clientAddr`, not the app's.
        let provided = descriptors
            .iter()
            .zip(&self.steps)
            .any(|(d, entry)| entry.module.is_none() && d.provides.iter().any(key));
        needed && !provided
    }

    fn warnings(&self) -> Vec<Warning> {
        let mut warnings = Vec::new();
        let providers = layer::build::discovered(&self.container);
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

/// A route that the router cannot serve with any of the others (none: with no route at all),
/// and the problem that is (GT0008).
type Conflict = (RouteId, Vec<RouteId>, Problem);

/// The matchit router over path templates, and per template the routes by method. Two routes
/// with one method and path, or templates matchit cannot tell apart, are GT0008.
#[derive(Default)]
struct RouteTable {
    router: matchit::Router<usize>,
    paths: Vec<PathEntry>,
    by_template: HashMap<String, usize>,
    origins: HashMap<RouteId, Origin>,
    /// The routes not routed for a conflict, by what they conflict with (a template's entry
    /// and a method, or a template matchit could not tell from theirs): alternatives, if no
    /// shape serves two of them, and each later one is checked against them all.
    stacked: HashMap<(usize, Option<http::Method>), Vec<RouteId>>,
}

impl RouteTable {
    fn add(
        &mut self,
        id: RouteId,
        method: http::Method,
        path: String,
        origin: Origin,
        conflicts: &mut Vec<Conflict>,
    ) {
        let entry = match self.by_template.get(&path) {
            Some(&entry) => entry,
            None => {
                if let Err(error) = self.router.insert(path.clone(), self.paths.len()) {
                    // The routes of the template it conflicts with, and those that conflicted
                    // with it before, if any.
                    let others = match &error {
                        matchit::InsertError::Conflict { with } => match self.by_template.get(with)
                        {
                            Some(&at) => {
                                let stacked = self.stacked.entry((at, None)).or_default();
                                let mut others: Vec<RouteId> =
                                    self.paths[at].methods.iter().map(|(_, id)| *id).collect();
                                others.extend(stacked.iter().copied());
                                stacked.push(id);
                                others
                            }
                            None => Vec::new(),
                        },
                        _ => Vec::new(),
                    };
                    let problem = Problem::RouteConflict {
                        route: origin,
                        reason: error.to_string(),
                    };
                    conflicts.push((id, others, problem));
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
            let routed = &self.origins[&first];
            let problem = Problem::RouteConflict {
                reason: format!(
                    "{method} {path} is already routed to {} ({})",
                    routed.name, routed.location
                ),
                route: origin,
            };
            let stacked = self.stacked.entry((entry, Some(method))).or_default();
            let others = std::iter::once(first)
                .chain(stacked.iter().copied())
                .collect();
            stacked.push(id);
            conflicts.push((id, others, problem));
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
        descriptor.when = self.when.clone();
        descriptor
    }
}
