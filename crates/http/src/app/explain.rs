//! `App::explain`, `App::explain_all`, `App::explain_worker` and `App::explain_module`: the
//! explain model (`crate::explain`) of the app's routes, workers and modules, read from its
//! router, its routes and its runtime.

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::build::RoutePlan;
use green_tea_core::__private::layer::explain::RequestMember;
use green_tea_core::__private::layer::values::{RouteId, Source};
use green_tea_core::{
    ExplainModule, ExplainWorker, KeySpec, NodeKind, UnknownModule, UnknownWorker,
};
use green_tea_key::closest;

use super::App;
use crate::explain::{ExplainApp, ExplainPath, ExplainRoute, ExplainStep, NeedSource, NoRoute};
use crate::route::FALLBACK;

impl App {
    /// The chain of each method at `path`: a concrete path (`/orders/42`) matches its template.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// let app = App::builder()
    ///     .value("greeting", String::from("hello"))
    ///     .route(Route::get("/hello/{name}", |_: RequestContext| async { "hi" }).needs::<String>("greeting"))
    ///     .build()
    ///     .unwrap();
    /// let explain = app.explain("/hello/tea").unwrap();
    /// assert_eq!(explain.template, "/hello/{name}");
    /// assert_eq!(explain.routes[0].providers.nodes[0].name, "value `greeting`");
    /// assert!(app.explain("/nope").is_err());
    /// ```
    pub fn explain(&self, path: &str) -> Result<ExplainPath, NoRoute> {
        let inner = &self.inner;
        match inner.router.at(path) {
            Ok(matched) => Ok(self.explain_entry(path, *matched.value)),
            Err(_) if inner.fallback.is_some() => {
                Ok(self.explain_fallback(path).expect("the app has a fallback"))
            }
            Err(_) => {
                let mut templates: Vec<&String> = inner.paths.iter().map(|p| &p.template).collect();
                templates.sort();
                let best = closest(path, templates.iter().copied(), |t| t.as_str()).cloned();
                let rest = templates
                    .into_iter()
                    .filter(|t| Some(*t) != best.as_ref())
                    .cloned();
                let routes: Vec<String> = best.clone().into_iter().chain(rest).collect();
                Err(NoRoute {
                    path: path.to_owned(),
                    routes,
                })
            }
        }
    }

    /// Every path of the app, sorted by template, every worker (see
    /// [`explain_worker`](Self::explain_worker)), and every module (see
    /// [`explain_module`](Self::explain_module)).
    pub fn explain_all(&self) -> ExplainApp {
        let container = self.container();
        let mut entries: Vec<usize> = (0..self.inner.paths.len()).collect();
        entries.sort_by(|&a, &b| {
            self.inner.paths[a]
                .template
                .cmp(&self.inner.paths[b].template)
        });
        ExplainApp {
            paths: entries
                .into_iter()
                .map(|e| self.explain_entry(&self.inner.paths[e].template, e))
                .chain(self.explain_fallback(FALLBACK))
                .collect(),
            workers: container.explain_workers(),
            modules: layer::modules::module_paths(&container)
                .filter_map(|path| self.explain_module(path).ok())
                .collect(),
            settings: container.settings_report(),
            switches: container.explain_switches(),
            startup: self.startup().map(|report| (*report).clone()),
            reload: self.explain_reloads(),
        }
    }

    /// The generation serving, the last reload's failure, and what a change of each field
    /// marked `reload` builds anew.
    fn explain_reloads(&self) -> crate::explain::ExplainReloads {
        let container = self.container();
        crate::explain::ExplainReloads {
            generation: container.generation(),
            last_failure: self.inner.last_reload_failure(),
            settings: (layer::reload::reloadable(&container).iter())
                .filter_map(|setting| self.explain_reload(setting).ok())
                .collect(),
        }
    }

    /// The worker named `name` (qualified by its module's path: `orders::relay`), as
    /// [`Container::explain_worker`](green_tea_core::Container::explain_worker) explains it:
    /// where it was declared, its module, its restart policy, whether it is critical, its
    /// state now, what it needs and which provider gives each, and the providers those needs
    /// build, in build order. A name no worker has is an error naming the closest one.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::workers::WorkerFn;
    /// let app = App::builder()
    ///     .value("outbox", String::from("the outbox"))
    ///     .worker(WorkerFn::new("relay", |_, _| async { Ok(()) }).needs::<String>("outbox"))
    ///     .build()
    ///     .unwrap();
    /// let relay = app.explain_worker("relay").unwrap();
    /// assert_eq!(relay.restart, "never");
    /// assert_eq!(relay.providers.nodes[0].name, "value `outbox`");
    /// assert!(app.explain_worker("rely").unwrap_err().to_string().contains("did you mean `relay`?"));
    /// ```
    pub fn explain_worker(&self, name: &str) -> Result<ExplainWorker, UnknownWorker> {
        self.inner.runtime().container.explain_worker(name)
    }

    /// What a change of `setting` touches (see
    /// [`Container::explain_reload`](green_tea_core::Container::explain_reload)): whether it
    /// may be applied without a restart, the providers a change builds anew and the workers
    /// that need them, and the routes whose requests would use them (by name, as
    /// `explain_module` names routes: `POST /orders -> Orders::create`). `setting` is its
    /// variable (`BILLING_TIMEOUT`) or its field (`billingSettings.timeout`).
    ///
    /// What it says is what [`reload`](crate::App::reload) does with such a change: it builds
    /// those providers anew and restarts those workers, or refuses a change that needs a
    /// restart.
    pub fn explain_reload(
        &self,
        setting: &str,
    ) -> Result<crate::explain::ExplainAppReload, green_tea_core::UnknownSettingName> {
        let container = &self.inner.runtime().container;
        let reload = container.explain_reload(setting)?;
        let runtime = &self.inner.runtime();
        let routes = (self.inner.routes.iter_enumerated())
            .filter(|(id, route)| {
                let roots = &runtime.routes[*id].plan.app_values;
                route.on && layer::explain::slice_rebuilt(container, roots, &reload)
            })
            .map(|(id, _)| runtime.routes[id].descriptor.name.to_string())
            .collect();
        Ok(crate::explain::ExplainAppReload { reload, routes })
    }

    /// Every settings type's fields, values (`***` for a secret) and where each came from, in
    /// one report, like Spring Boot's `configprops`; the explain page shows it too. See
    /// [`Container::settings_report`](green_tea_core::Container::settings_report).
    pub fn settings_report(&self) -> green_tea_core::settings::SettingsReport {
        self.inner.runtime().container.settings_report()
    }

    /// The module at `path` (`orders`, `shop::orders` for a sub-module), as
    /// [`Container::explain_module`](green_tea_core::Container::explain_module) explains it,
    /// with its steps and routes (and its workers, as the container lists them): their keys
    /// among its exports or private keys, and what they need from outside it among its imports (a step no route runs shows no imports: its
    /// needs are resolved in the routes' plans). A path no module has is an error naming the
    /// closest one.
    ///
    /// ```
    /// use green_tea::prelude::*;
    /// let app = App::builder()
    ///     .value("db", String::from("the app's db"))
    ///     .module(
    ///         Module::new("orders")
    ///             .route(
    ///                 Route::get("/", |_: RequestContext| async { "orders" })
    ///                     .needs::<String>("db")
    ///                     .named("Orders::list"),
    ///             )
    ///             .prefix("/orders"),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// let orders = app.explain_module("orders").unwrap();
    /// assert_eq!(orders.routes[0].name, "GET /orders -> Orders::list");
    /// assert_eq!(orders.imports[0].key, "db");
    /// assert!(app.explain_module("order").unwrap_err().to_string().contains("did you mean `orders`?"));
    /// ```
    pub fn explain_module(&self, path: &str) -> Result<ExplainModule, UnknownModule> {
        let runtime = &self.inner.runtime();
        let container = &runtime.container;
        let in_module = |module: &Option<std::sync::Arc<str>>| module.as_deref() == Some(path);
        let mut members = Vec::new();
        // What is off in this shape is the module's `off` list (the container's shape).
        for (id, step) in runtime.steps.iter_enumerated() {
            if !in_module(&step.module) || !step.on {
                continue;
            }
            // Its needs as the first route that runs it reads them.
            let needs = runtime
                .routes
                .iter()
                .find_map(|run| {
                    let planned = run.plan.steps.iter().find(|p| p.step == id)?;
                    Some(self.source_keys(&run.plan, &planned.needs))
                })
                .unwrap_or_default();
            let d = &step.descriptor;
            members.push(RequestMember {
                kind: NodeKind::Step,
                name: d.name.to_string(),
                location: d.location.to_string(),
                provides: d.provides.iter().map(|s| s.key.to_string()).collect(),
                needs,
                finishes: !step.finishing.is_empty(),
            });
        }
        for (id, route) in self.inner.routes.iter_enumerated() {
            if !in_module(&route.module) || !route.on {
                continue;
            }
            let run = &runtime.routes[id];
            members.push(RequestMember {
                kind: NodeKind::Route,
                name: run.descriptor.name.to_string(),
                location: run.descriptor.location.to_string(),
                provides: Vec::new(),
                needs: self.source_keys(&run.plan, &run.plan.needs),
                finishes: false,
            });
        }
        layer::explain::explain_module_with(container, path, members)
    }

    /// The keys of the values `sources` (of a route's `plan`) read: a provider's key, or the
    /// key of the step value a local is; nothing for an absent need.
    fn source_keys(&self, plan: &RoutePlan, sources: &[Source]) -> Vec<String> {
        let runtime = &self.inner.runtime();
        sources
            .iter()
            .filter_map(|source| match *source {
                Source::App(at) => {
                    Some(layer::values::value_key(&runtime.container, at).to_string())
                }
                Source::Local(local) => {
                    let mut first = 0;
                    plan.steps.iter().find_map(|planned| {
                        let provides = &runtime.steps[planned.step].descriptor.provides;
                        let index = local.position().checked_sub(first)?;
                        first += provides.len();
                        provides.get(index).map(|s| s.key.to_string())
                    })
                }
                Source::Absent => None,
            })
            .collect()
    }

    /// The fallback's chain, shown at the template `(fallback)`.
    fn explain_fallback(&self, path: &str) -> Option<ExplainPath> {
        let fallback = self.inner.fallback?;
        Some(ExplainPath {
            path: path.to_owned(),
            template: FALLBACK.to_owned(),
            routes: vec![self.explain_route(fallback)],
        })
    }

    fn explain_entry(&self, path: &str, entry: usize) -> ExplainPath {
        let entry = &self.inner.paths[entry];
        ExplainPath {
            path: path.to_owned(),
            template: entry.template.clone(),
            routes: entry
                .methods
                .iter()
                .map(|&(_, route)| self.explain_route(route))
                .collect(),
        }
    }

    fn explain_route(&self, id: RouteId) -> ExplainRoute {
        let runtime = &self.inner.runtime();
        let (route, run) = (&self.inner.routes[id], &runtime.routes[id]);
        let handler = route.name.to_string();
        let plan = &run.plan;
        let providers =
            layer::explain::explain_values(&runtime.container, handler.clone(), &plan.app_values);
        // Where each need comes from, as the plan reads it: a provider value (its node is the
        // explain's root for it), a value of a step that ran before (the request's values are
        // its steps', in run order), or nothing.
        let step_of_local: Vec<usize> = plan
            .steps
            .iter()
            .enumerate()
            .flat_map(|(i, planned)| {
                std::iter::repeat_n(i, runtime.steps[planned.step].descriptor.provides.len())
            })
            .collect();
        let from = |sources: &[Source]| -> Vec<NeedSource> {
            sources
                .iter()
                .map(|source| match *source {
                    Source::App(at) => plan
                        .app_values
                        .iter()
                        .position(|v| *v == at)
                        .and_then(|root| providers.roots.get(root))
                        .map_or(NeedSource::Absent, |&node| NeedSource::Provider(node)),
                    Source::Local(local) => step_of_local
                        .get(local.position())
                        .map_or(NeedSource::Absent, |&step| NeedSource::Step(step)),
                    Source::Absent => NeedSource::Absent,
                })
                .collect()
        };
        // Of those, the ones whose key is off in this shape, with where it is on.
        let container = &runtime.container;
        let off = |specs: &[KeySpec], from: &[NeedSource], module: Option<&str>| {
            specs
                .iter()
                .zip(from)
                .filter(|(_, f)| **f == NeedSource::Absent)
                .filter_map(|(s, _)| {
                    let on = layer::explain::off_reason(container, module, &s.key)?;
                    Some((s.key.to_string(), on))
                })
                .collect::<Vec<_>>()
        };
        let absent = |specs: &[KeySpec], from: &[NeedSource]| -> Vec<String> {
            specs
                .iter()
                .zip(from)
                .filter(|(_, f)| **f == NeedSource::Absent)
                .map(|(s, _)| s.key.to_string())
                .collect()
        };
        let steps = plan
            .steps
            .iter()
            .map(|planned| {
                let step = &runtime.steps[planned.step].descriptor;
                let from = from(&planned.needs);
                ExplainStep {
                    name: step.name.to_string(),
                    provides: step
                        .provides
                        .iter()
                        .map(|s| format!("{}: {}", s.key, s.ty))
                        .collect(),
                    needs: step.needs.iter().map(|s| s.key.to_string()).collect(),
                    absent: absent(&step.needs, &from),
                    off: off(
                        &step.needs,
                        &from,
                        runtime.steps[planned.step].module.as_deref(),
                    ),
                    from,
                    location: step.location.to_string(),
                    module: runtime.steps[planned.step]
                        .module
                        .as_deref()
                        .map(str::to_owned),
                    finishes: !runtime.steps[planned.step].finishing.is_empty(),
                }
            })
            .collect();
        let needs = &run.descriptor.needs;
        let handler_from = from(&plan.needs);
        ExplainRoute {
            method: route.method.to_string(),
            template: route.template.clone(),
            location: run.descriptor.location.to_string(),
            needs: needs.iter().map(|s| s.key.to_string()).collect(),
            absent: absent(needs, &handler_from),
            off: off(needs, &handler_from, route.module.as_deref()),
            from: handler_from,
            layers: route.layer_names.clone(),
            steps,
            providers,
            handler,
            module: route.module.as_deref().map(str::to_owned),
        }
    }
}
