//! Request-scoped declarations (steps and routes) checked in the same graph as the providers,
//! and each route compiled into its plan: the steps it runs, in order, and where every need
//! comes from, by typed id. The HTTP layer serves these plans.

use std::borrow::Cow;
use std::sync::Arc;

use crate::container::{Container, ContainerBuilder, Request, worker_decls, worker_nodes};
use crate::descriptor::Descriptor;
use crate::error::{BuildError, NodeKind, Problem};
use crate::graph::{self, Analysis, Decl, Input, RouteDecl, Value};
use crate::ids::{AppValue, IdVec, LocalId, RouteId, Source, StepId};
use crate::module::ModuleIndex;

/// The steps and routes of an app, each with what the layer above needs to run it (`S` for a
/// step, `R` for a route).
pub struct RequestDecls<S, R> {
    steps: IdVec<StepId, (Descriptor, S)>,
    /// The module each step was registered in, if any.
    step_modules: IdVec<StepId, Option<ModuleIndex>>,
    routes: IdVec<RouteId, DeclaredRoute<R>>,
    /// Routes the layer above cannot serve together (one method and path), each with the
    /// problem it is in the shapes that serve both.
    conflicts: Vec<Conflict>,
}

/// A route that cannot be served with any of `others`: `problem` unless no shape serves it
/// with one of them.
struct Conflict {
    route: RouteId,
    others: Vec<RouteId>,
    problem: Problem,
}

impl<S, R> std::fmt::Debug for RequestDecls<S, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let steps: Vec<&str> = self.steps.iter().map(|(d, _)| &*d.name).collect();
        let routes: Vec<&str> = self.routes.iter().map(|r| &*r.descriptor.name).collect();
        f.debug_struct("RequestDecls")
            .field("steps", &steps)
            .field("routes", &routes)
            .finish_non_exhaustive()
    }
}

struct DeclaredRoute<R> {
    descriptor: Descriptor,
    module: Option<ModuleIndex>,
    guards: Vec<Cow<'static, str>>,
    payload: R,
}

impl<S, R> Default for RequestDecls<S, R> {
    fn default() -> Self {
        RequestDecls {
            steps: IdVec::new(),
            step_modules: IdVec::new(),
            routes: IdVec::new(),
            conflicts: Vec::new(),
        }
    }
}

impl<S, R> RequestDecls<S, R> {
    /// Nothing yet.
    pub fn new() -> Self {
        RequestDecls::default()
    }

    /// Adds a step; its name is how routes name it as a guard.
    pub fn add_step(&mut self, descriptor: Descriptor, step: S) -> StepId {
        self.add_step_in(descriptor, step, None)
    }

    /// Adds a step registered in `module`: the keys it provides are the module's, and its
    /// needs resolve inside it first.
    pub fn add_step_in(
        &mut self,
        descriptor: Descriptor,
        step: S,
        module: Option<ModuleIndex>,
    ) -> StepId {
        self.step_modules.push(module);
        self.steps.push((descriptor, step))
    }

    /// Adds a route's handler (its descriptor provides nothing) and the steps it names as
    /// guards.
    pub fn add_route(
        &mut self,
        descriptor: Descriptor,
        guards: Vec<Cow<'static, str>>,
        route: R,
    ) -> RouteId {
        self.add_route_in(descriptor, guards, route, None)
    }

    /// Records that `route` cannot be served with any of `others` (one method and path, or
    /// templates the router cannot tell apart): `problem` is reported unless no shape serves
    /// `route` with one of them (without switches, always).
    pub fn add_conflict(&mut self, route: RouteId, others: Vec<RouteId>, problem: Problem) {
        self.conflicts.push(Conflict {
            route,
            others,
            problem,
        });
    }

    /// Adds a route registered in `module`: its needs and guards resolve inside it first.
    pub fn add_route_in(
        &mut self,
        descriptor: Descriptor,
        guards: Vec<Cow<'static, str>>,
        route: R,
        module: Option<ModuleIndex>,
    ) -> RouteId {
        self.routes.push(DeclaredRoute {
            descriptor,
            module,
            guards,
            payload: route,
        })
    }
}

/// A checked app: the container of its providers, and its steps and routes with their plans.
pub struct Wired<S, R> {
    /// The providers.
    pub container: Container,
    /// The steps, as added.
    pub steps: IdVec<StepId, WiredStep<S>>,
    /// The routes, as added, each with its plan.
    pub routes: IdVec<RouteId, WiredRoute<R>>,
}

impl<S, R> std::fmt::Debug for Wired<S, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wired")
            .field("container", &self.container)
            .field("steps", &self.steps)
            .field("routes", &self.routes)
            .finish()
    }
}

/// A checked step.
pub struct WiredStep<S> {
    /// What it provides and needs.
    pub descriptor: Descriptor,
    /// What the layer above runs.
    pub step: S,
    /// The path of the module it was registered in (`shop::orders`), if any; the keys it
    /// provides are qualified by it in `descriptor`.
    pub module: Option<Arc<str>>,
    /// Whether it is on in today's shape (always, without switches): a step that is off
    /// runs in no route's plan.
    pub on: bool,
}

impl<S> std::fmt::Debug for WiredStep<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WiredStep")
            .field("descriptor", &self.descriptor)
            .finish_non_exhaustive()
    }
}

/// A checked route and its plan.
pub struct WiredRoute<R> {
    /// What its handler needs.
    pub descriptor: Descriptor,
    /// What the layer above runs.
    pub route: R,
    /// What serving it takes.
    pub plan: RoutePlan,
    /// The path of the module it was registered in, if any.
    pub module: Option<Arc<str>>,
    /// Whether it is served in today's shape (always, without switches). A route that is off
    /// has an empty plan: it reads nothing, and the layer above does not route to it.
    pub on: bool,
}

impl<R> std::fmt::Debug for WiredRoute<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WiredRoute")
            .field("descriptor", &self.descriptor)
            .field("plan", &self.plan)
            .finish_non_exhaustive()
    }
}

/// What serving one route takes, compiled at `build()`: no key is looked up by name while
/// serving.
#[derive(Clone, Debug)]
pub struct RoutePlan {
    /// The steps it runs (what its handler and guards need, transitively), in run order. The
    /// values each provides are the request's, in this order: they are its [`LocalId`]s.
    pub steps: Box<[PlannedStep]>,
    /// Where each of the handler's needs comes from.
    pub needs: Box<[Source]>,
    /// How many values its steps provide per request.
    pub locals: usize,
    /// Every provider value its steps and handler read: built before they run.
    pub app_values: Box<[AppValue]>,
}

impl RoutePlan {
    /// The plan of a route that is off in today's shape, whose handler needs `needs` keys:
    /// nothing runs, nothing is read.
    fn off(needs: usize) -> RoutePlan {
        RoutePlan {
            steps: Box::new([]),
            needs: vec![Source::Absent; needs].into(),
            locals: 0,
            app_values: Box::new([]),
        }
    }
}

/// One step of a route's plan.
#[derive(Clone, Debug)]
pub struct PlannedStep {
    /// The step.
    pub step: StepId,
    /// Where each of its needs comes from.
    pub needs: Box<[Source]>,
}

impl ContainerBuilder {
    /// Checks the providers together with `scope`: every need provided, with the right type,
    /// no cycle, no provider needing a request's value, every guard a step. Constructs
    /// nothing.
    pub(crate) fn build_scope<S, R>(
        mut self,
        mut scope: RequestDecls<S, R>,
    ) -> Result<Wired<S, R>, BuildError> {
        // Each step and route knows its module's path, for what errors and explain name.
        for ((descriptor, _), module) in scope.steps.iter_mut().zip(scope.step_modules.iter()) {
            descriptor.module = module.map(|m| Arc::clone(&self.module_table[m.0 as usize].path));
        }
        for route in scope.routes.iter_mut() {
            route.descriptor.module = route
                .module
                .map(|m| Arc::clone(&self.module_table[m.0 as usize].path));
        }
        let mut workers = self.take_workers();
        let mut problems = self.prepare(
            scope
                .steps
                .iter()
                .map(|(d, _)| d)
                .chain(scope.routes.iter().map(|r| &r.descriptor))
                .chain(workers.iter().map(|w| &w.registered.descriptor)),
        );
        let module = |m: Option<ModuleIndex>| m.map(|m| m.0);
        let requests: Vec<Request<'_>> = (scope.steps.iter().zip(scope.step_modules.iter()))
            .map(|((descriptor, _), &m)| Request {
                kind: NodeKind::Step,
                descriptor,
                module: module(m),
            })
            .chain(scope.routes.iter().map(|r| Request {
                kind: NodeKind::Route,
                descriptor: &r.descriptor,
                module: module(r.module),
            }))
            .collect();
        let shapes = self.plan_shapes(&workers, &requests, &mut problems);
        let (of, on) = match &shapes {
            Some(shapes) => self.nodes(shapes),
            None => Default::default(),
        };
        // Two routes that cannot be served together are a problem where both are.
        let first_route = self.entries.len() + scope.steps.len();
        for Conflict {
            route,
            others,
            problem,
        } in std::mem::take(&mut scope.conflicts)
        {
            let Some(shapes) = &shapes else {
                problems.push(problem);
                continue;
            };
            let condition = |r: RouteId| &shapes.conditions[of[first_route + r.index()] as usize];
            let mine = condition(route);
            let together = (others.iter()).find_map(|&other| condition(other).and(mine));
            match together {
                Some(both) if both.is_always() => problems.push(problem),
                Some(both) => problems.push(Problem::InShape {
                    shape: shapes.switches.describe(&both),
                    problem: Box::new(problem),
                }),
                None => {}
            }
        }
        let input = Input {
            providers: self.provider_decls(),
            steps: step_decls(&scope),
            // Workers are consumers too, of the app's scope: after the routes.
            routes: route_decls(&scope).chain(worker_decls(&workers)).collect(),
            module_table: &self.module_table,
            shapes: shapes.as_ref().map(|shapes| graph::Shapes {
                of: &of,
                conditions: &shapes.conditions,
                on: &on,
                switches: &shapes.switches,
            }),
        };
        let mut analysis = graph::analyze(&input);
        drop(input);
        let mut worker_needs = match &mut analysis {
            Ok(analysis) => {
                analysis.route_guards.split_off(scope.routes.len());
                analysis.route_needs.split_off(scope.routes.len())
            }
            Err(_) => Vec::new(),
        };
        let requests_on = match shapes {
            Some(shapes) => self.keep_today(
                (shapes, of, &on),
                (analysis.as_ref().ok(), &requests),
                (&mut workers, &mut worker_needs),
                &mut problems,
            ),
            None => vec![true; requests.len()],
        };
        drop(requests);
        let (steps_on, routes_on) = requests_on.split_at(scope.steps.len());
        let analysis =
            graph::with_problems(analysis, &mut problems).map_err(BuildError::from_problems)?;
        let plans: IdVec<RouteId, RoutePlan> = (analysis.route_needs.ids())
            .map(|route| match routes_on[route.index()] {
                true => plan(&analysis, &scope.steps, route),
                false => RoutePlan::off(scope.routes[route].descriptor.needs.len()),
            })
            .collect();
        tracing::debug!(
            steps = scope.steps.len(),
            routes = scope.routes.len(),
            "request scope checked"
        );
        let path = |module: Option<ModuleIndex>| {
            module.map(|m| Arc::clone(&self.module_table[m.0 as usize].path))
        };
        let step_modules: Vec<Option<Arc<str>>> =
            scope.step_modules.iter().map(|&m| path(m)).collect();
        let route_modules: Vec<Option<Arc<str>>> =
            scope.routes.iter().map(|r| path(r.module)).collect();
        let container = self.into_container(analysis, worker_nodes(workers, worker_needs));
        let mut plans = plans.into_iter();
        let mut step_modules = step_modules.into_iter();
        let mut route_modules = route_modules.into_iter();
        let (mut steps_on, mut routes_on) = (steps_on.iter(), routes_on.iter());
        Ok(Wired {
            container,
            steps: scope.steps.map(|_, (mut descriptor, step)| {
                let module = step_modules.next().flatten();
                if let Some(path) = &module {
                    qualify_provided(&mut descriptor, path);
                }
                WiredStep {
                    descriptor,
                    step,
                    module,
                    on: *steps_on.next().expect("one flag per step"),
                }
            }),
            routes: scope.routes.map(|_, r| WiredRoute {
                descriptor: r.descriptor,
                route: r.payload,
                plan: plans.next().expect("one plan per route"),
                module: route_modules.next().flatten(),
                on: *routes_on.next().expect("one flag per route"),
            }),
        })
    }
}

/// The steps of `scope` as the graph sees them.
fn step_decls<S, R>(scope: &RequestDecls<S, R>) -> IdVec<StepId, Decl<'_>> {
    scope
        .steps
        .iter()
        .zip(scope.step_modules.iter())
        .map(|((descriptor, _), &module)| Decl {
            kind: NodeKind::Step,
            descriptor,
            in_module: ModuleIndex::in_module(module),
            keys_qualified: false,
        })
        .collect()
}

/// The routes of `scope` as the graph sees them.
fn route_decls<S, R>(scope: &RequestDecls<S, R>) -> impl Iterator<Item = RouteDecl<'_>> {
    scope.routes.iter().map(|r| RouteDecl {
        decl: Decl {
            kind: NodeKind::Route,
            descriptor: &r.descriptor,
            in_module: ModuleIndex::in_module(r.module),
            keys_qualified: false,
        },
        guards: &r.guards,
    })
}

/// Route `route`'s plan: the steps its handler and guards need, transitively, in graph order;
/// their values laid out in that order; every need's source.
fn plan<S>(
    analysis: &Analysis,
    steps: &IdVec<StepId, (Descriptor, S)>,
    route: RouteId,
) -> RoutePlan {
    let mut runs = IdVec::filled(false, steps.len());
    let mut stack: Vec<StepId> = analysis.route_guards[route].to_vec();
    let needed_steps = |needs: &[Value]| -> Vec<StepId> {
        needs
            .iter()
            .filter_map(|v| match v {
                Value::Step(at) => Some(at.step),
                Value::App(_) | Value::Absent => None,
            })
            .collect()
    };
    stack.extend(needed_steps(&analysis.route_needs[route]));
    while let Some(step) = stack.pop() {
        if !std::mem::replace(&mut runs[step], true) {
            stack.extend(needed_steps(&analysis.step_needs[step]));
        }
    }
    let mut order: Vec<StepId> = steps.ids().filter(|&s| runs[s]).collect();
    order.sort_by_key(|&s| analysis.step_rank[s]);

    // Each step's values go to the request's locals, in run order.
    let mut first_local: IdVec<StepId, Option<usize>> = IdVec::filled(None, steps.len());
    let mut locals = 0;
    for &step in &order {
        first_local[step] = Some(locals);
        locals += steps[step].0.provides.len();
    }
    let mut app_values = Vec::new();
    let mut source = |value: &Value| match *value {
        Value::App(at) => {
            if !app_values.contains(&at) {
                app_values.push(at);
            }
            Source::App(at)
        }
        Value::Step(at) => {
            let first = first_local[at.step].expect("a needed step runs before its consumer");
            Source::Local(LocalId::at(first + at.index as usize))
        }
        Value::Absent => Source::Absent,
    };
    let planned: Box<[PlannedStep]> = order
        .iter()
        .map(|&step| PlannedStep {
            step,
            needs: analysis.step_needs[step].iter().map(&mut source).collect(),
        })
        .collect();
    let needs = analysis.route_needs[route]
        .iter()
        .map(&mut source)
        .collect();
    RoutePlan {
        steps: planned,
        needs,
        locals,
        app_values: app_values.into(),
    }
}

/// The keys `descriptor` provides, as the graph named them for a declaration in the module at
/// `path`: a plain name qualified (`orders::user`), a collection's contribution as it is.
pub(crate) fn qualify_provided(descriptor: &mut Descriptor, path: &str) {
    for spec in &mut descriptor.provides {
        spec.key = crate::graph::qualified_key(Some(path), &spec.key);
    }
}
