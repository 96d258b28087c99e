//! `build()` with switches: decide them from the settings read, give each declaration its
//! condition and whether it is on today, for the one analysis that checks the graph of every
//! shape and resolves today's; then keep today's shape for what shows it.

use std::sync::Arc;

use super::builder::{ContainerBuilder, WorkerEntry};
use super::shape::{Off, Shape};
use crate::error::{NodeKind, Problem};
use crate::graph::Analysis;
use crate::key::Key;
use crate::switch::condition::Condition;
use crate::switch::decide::{self, Ready, Switches};

/// What the switches decide for one build: each switch, and each declaration's condition, as
/// a position in a table of the distinct conditions (the first, `0`, is on in every shape: an
/// app's declarations are nearly all there, and cost a `u32` each).
pub(crate) struct Plan {
    pub(crate) switches: Switches,
    /// The distinct conditions, [`Condition::ALWAYS`] first.
    pub(crate) conditions: Vec<Condition>,
    /// Each declaration's condition, by its position among the builder's entries.
    entries: Vec<u32>,
    /// Each step's, then each route's, as the app added them.
    requests: Vec<u32>,
    /// Each worker's, in registration order.
    workers: Vec<u32>,
    /// Each module's, with its parents'.
    modules: Vec<u32>,
}

impl Plan {
    /// The position of `condition` in the table, added if new.
    fn intern(conditions: &mut Vec<Condition>, condition: Condition) -> u32 {
        let at = match conditions.iter().position(|c| *c == condition) {
            Some(at) => at,
            None => {
                conditions.push(condition);
                conditions.len() - 1
            }
        };
        u32::try_from(at).expect("fewer than 2^32 conditions")
    }
}

/// A step or a route, as the plan reads it: its declaration and the module it was registered
/// in (its position), if any.
#[derive(Clone, Copy)]
pub(crate) struct Request<'a> {
    pub(crate) kind: NodeKind,
    pub(crate) descriptor: &'a crate::descriptor::Descriptor,
    pub(crate) module: Option<u32>,
}

/// GT0023 for `what`, whose conditions cannot hold together; it is checked as if it had none.
fn never(what: String, location: crate::key::Location, problems: &mut Vec<Problem>) -> Condition {
    problems.push(Problem::Switch {
        subject: what,
        location,
        reason: "is on under conditions that no shape meets together: it would never be part \
                 of the graph"
            .to_owned(),
    });
    Condition::ALWAYS
}

impl ContainerBuilder {
    /// Whether anything here names a switch: a switch, a condition (a step's or a route's of
    /// `requests` too), an override of one.
    fn has_switches(&self, requests: &[Request<'_>]) -> bool {
        !self.switches.is_empty()
            || !self.switch_overrides.is_empty()
            || self.conditioned
            || requests.iter().any(|r| !r.descriptor.when.is_empty())
    }

    /// Decides the switches (the settings were read) and gives each declaration its
    /// condition (the app's steps and routes, `requests`, too); `None` for an app without
    /// switches, which builds as it always did.
    pub(crate) fn plan_shapes(
        &mut self,
        workers: &[WorkerEntry],
        requests: &[Request<'_>],
        problems: &mut Vec<Problem>,
    ) -> Option<Plan> {
        if !self.has_switches(requests) {
            return None;
        }
        let modules = &self.module_table;
        let ready: Vec<Ready<'_>> = self
            .entries
            .iter()
            .filter(|e| matches!(e.kind, NodeKind::Settings | NodeKind::Override))
            .filter_map(|e| {
                let spec = e.registered.descriptor.provides.first()?;
                Some(Ready {
                    registered: &e.registered,
                    kind: e.kind,
                    key: self.key_of(e, &spec.key),
                })
            })
            .collect();
        let switches = decide::decide(
            &self.switches,
            modules,
            &ready,
            &self.switch_overrides,
            problems,
        );
        drop(ready);
        let mut conditions = vec![Condition::ALWAYS];
        let mut module_conditions: Vec<u32> = Vec::with_capacity(modules.len());
        for module in modules.iter() {
            let outer = module.parent.map_or(0, |p| module_conditions[p]);
            if module.when.is_empty() {
                module_conditions.push(outer);
                continue;
            }
            let parent = module.parent.map(|p| p as u32);
            let condition = switches
                .condition(modules, parent, &module.when, module.location, problems)
                .and_then(|own| conditions[outer as usize].and(&own))
                .unwrap_or_else(|| {
                    never(
                        format!("the module `{}`", module.path),
                        module.location,
                        problems,
                    )
                });
            module_conditions.push(Plan::intern(&mut conditions, condition));
        }
        // What each module and list of conditions made: many declarations share one (the
        // declarations of one `when`), and each is parsed and resolved once.
        let mut made: Vec<(Option<u32>, Vec<std::borrow::Cow<'static, str>>, u32)> = Vec::new();
        let mut condition_of = |descriptor: &crate::descriptor::Descriptor,
                                module: Option<u32>,
                                problems: &mut Vec<Problem>| {
            let outer = module.map_or(0, |m| module_conditions[m as usize]);
            if descriptor.when.is_empty() {
                return outer;
            }
            let seen = made
                .iter()
                .find(|(m, when, _)| *m == module && *when == descriptor.when);
            if let Some(&(_, _, made)) = seen {
                return made;
            }
            let before = problems.len();
            let condition = switches
                .condition(
                    modules,
                    module,
                    &descriptor.when,
                    descriptor.location,
                    problems,
                )
                .and_then(|own| conditions[outer as usize].and(&own))
                .unwrap_or_else(|| {
                    never(
                        format!("`{}`", descriptor.qualified_name()),
                        descriptor.location,
                        problems,
                    )
                });
            let at = Plan::intern(&mut conditions, condition);
            // A list with a problem is read again for each declaration, each problem named
            // where it is.
            if problems.len() == before {
                made.push((module, descriptor.when.clone(), at));
            }
            at
        };
        let entries = self
            .entries
            .iter()
            .map(|e| match e.kind {
                // A collection is on in every shape (it holds what is on); an override follows
                // what it replaces; and nearly every declaration is the app's, on in every shape.
                NodeKind::Collection | NodeKind::Override => 0,
                _ if e.module.is_none() && e.registered.descriptor.when.is_empty() => 0,
                _ => condition_of(&e.registered.descriptor, e.module, problems),
            })
            .collect();
        let requests = requests
            .iter()
            .map(|r| condition_of(r.descriptor, r.module, problems))
            .collect();
        let workers = workers
            .iter()
            .map(|w| condition_of(&w.registered.descriptor, w.module, problems))
            .collect();
        Some(Plan {
            switches,
            conditions,
            entries,
            requests,
            workers,
            modules: module_conditions,
        })
    }

    /// Each node's condition (its position in the plan's table) and whether it is on today,
    /// in the graph's numbering: the declarations, then the steps and the routes, then the
    /// workers. An override is on where some declaration of its key is on today: it follows
    /// what it replaces.
    pub(crate) fn nodes(&self, plan: &Plan) -> (Vec<u32>, Vec<bool>) {
        let mut of: Vec<u32> =
            Vec::with_capacity(plan.entries.len() + plan.requests.len() + plan.workers.len());
        of.extend_from_slice(&plan.entries);
        of.extend_from_slice(&plan.requests);
        of.extend_from_slice(&plan.workers);
        let holds: Vec<bool> = plan
            .conditions
            .iter()
            .map(|c| plan.switches.holds(c))
            .collect();
        let mut on: Vec<bool> = of.iter().map(|&c| holds[c as usize]).collect();
        let overrides =
            (self.entries.iter().enumerate()).filter(|(_, e)| e.kind == NodeKind::Override);
        for (at, entry) in overrides {
            let keys: Vec<Key> = self.keys_of(entry).collect();
            let replaced: Vec<usize> = (self.entries.iter().enumerate())
                .filter(|(_, e)| {
                    e.kind != NodeKind::Override && self.keys_of(e).any(|k| keys.contains(&k))
                })
                .map(|(i, _)| i)
                .collect();
            // With nothing to replace, it is on, and the graph says so (GT0005).
            on[at] = replaced.is_empty() || replaced.iter().any(|&i| on[i]);
        }
        (of, on)
    }

    /// After the analysis of every shape (which resolved today's graph; `None` when it found
    /// problems): leaves out the workers that are off (and their needs, `worker_needs`, in the
    /// same order), drops the problems of settings that are off or that only what is off
    /// needs, and keeps today's shape (the modules, steps and routes that are off among it)
    /// for `explain`, health and GT0106. The declarations stay where they are (their ids are
    /// the graph's); `on` says which the container may build. Returns whether each of
    /// `requests` is on today: the layer above serves only those.
    pub(crate) fn keep_today<T>(
        &mut self,
        (plan, of, on): (Plan, Vec<u32>, &[bool]),
        (analysis, requests): (Option<&Analysis>, &[Request<'_>]),
        (workers, worker_needs): (&mut Vec<WorkerEntry>, &mut Vec<T>),
        problems: &mut Vec<Problem>,
    ) -> Vec<bool> {
        let Plan {
            switches,
            conditions,
            workers: worker_conditions,
            modules: module_conditions,
            ..
        } = plan;
        let modules_off = (module_conditions.iter().enumerate())
            .map(|(at, &c)| (at, &conditions[c as usize]))
            .filter(|(_, condition)| !switches.holds(condition))
            .map(|(at, condition)| {
                let at = u32::try_from(at).expect("fewer than 2^32 modules");
                (at, switches.describe(condition))
            })
            .collect();
        let mut off = Vec::new();
        let node = |at: usize| u32::try_from(at).expect("fewer than 2^32 nodes");
        let spelled =
            |d: &crate::descriptor::Descriptor| d.needs.iter().map(|n| n.key.clone()).collect();
        for (at, ((entry, &condition), on)) in self.entries.iter().zip(&of).zip(on).enumerate() {
            if !on {
                let condition = &conditions[condition as usize];
                off.push(Off {
                    kind: entry.kind,
                    name: entry.registered.descriptor.qualified_name().into_owned(),
                    provides: self.keys_of(entry).collect(),
                    on: switches.describe(condition),
                    location: entry.registered.descriptor.location,
                    module: entry.module,
                    node: node(at),
                    needs: spelled(&entry.registered.descriptor),
                });
            }
        }
        let entries = self.entries.len();
        let requests_on = on[entries..entries + requests.len()].to_vec();
        for (at, ((request, &condition), _)) in (requests.iter())
            .zip(&of[entries..])
            .zip(&requests_on)
            .enumerate()
            .filter(|(_, (_, on))| !**on)
        {
            let descriptor = request.descriptor;
            let path = request.module.map(|m| &*self.module_table[m as usize].path);
            off.push(Off {
                kind: request.kind,
                // A route by its method and path, as explain lists routes.
                name: match request.kind {
                    NodeKind::Route => descriptor.name.to_string(),
                    _ => descriptor.qualified_name().into_owned(),
                },
                provides: (descriptor.provides.iter())
                    .map(|spec| crate::graph::qualified_key(path, &spec.key))
                    .collect(),
                on: switches.describe(&conditions[condition as usize]),
                location: descriptor.location,
                module: request.module,
                node: node(entries + at),
                needs: spelled(descriptor),
            });
        }
        let workers_on: Vec<bool> = (worker_conditions.iter())
            .map(|&c| switches.holds(&conditions[c as usize]))
            .collect();
        // Workers are the last nodes.
        let first_worker = of.len() - workers.len();
        let mut worker_nodes = Vec::new();
        for (at, (worker, &condition)) in workers.iter().zip(&worker_conditions).enumerate() {
            let condition = &conditions[condition as usize];
            if switches.holds(condition) {
                worker_nodes.push(node(first_worker + at));
                continue;
            }
            off.push(Off {
                kind: NodeKind::Worker,
                name: worker.registered.descriptor.qualified_name().into_owned(),
                provides: Vec::new(),
                on: switches.describe(condition),
                location: worker.registered.descriptor.location,
                module: worker.module,
                node: node(first_worker + at),
                needs: spelled(&worker.registered.descriptor),
            });
        }
        let mut keep = workers_on.iter();
        workers.retain(|_| *keep.next().expect("a condition per worker"));
        let mut keep = workers_on.iter();
        worker_needs.retain(|_| *keep.next().expect("a condition per worker"));
        // Settings that are off, or that only what is off needs, are not needed today: what
        // reading them found is not a problem. Those a switch reads are: the switch is decided
        // from them.
        let needed_only_off = analysis.map_or(&[][..], |a| &a.needed_only_off);
        let read_by_a_switch = |key: &Key| switches.table.iter().any(|s| s.settings == *key);
        let only_off: Vec<Key> = (needed_only_off.iter())
            .map(|&id| &self.entries[id])
            .filter(|e| e.kind == NodeKind::Settings)
            .flat_map(|e| self.keys_of(e))
            .filter(|key| !read_by_a_switch(key))
            .collect();
        let off_settings: Vec<&Key> = off
            .iter()
            .filter(|o| o.kind == NodeKind::Settings)
            .flat_map(|o| &o.provides)
            .chain(&only_off)
            .collect();
        if !off_settings.is_empty() {
            problems.retain(|p| match p {
                Problem::SettingMissing { settings, .. }
                | Problem::SettingInvalid { settings, .. }
                | Problem::SettingRejected { settings, .. } => !off_settings.contains(&settings),
                _ => true,
            });
        }
        self.today = Some(on[..entries].to_vec());
        self.shape = Some(Arc::new(Shape {
            switches,
            off,
            modules_off,
            of,
            conditions,
            modules: module_conditions,
            worker_nodes,
        }));
        requests_on
    }
}
