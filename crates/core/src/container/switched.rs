//! `build()` with switches: decide them from the settings read, give each declaration its
//! condition, check the graph of every shape at once, then leave out what today's shape has
//! off, so that the graph checked and built as without switches is today's.

use std::sync::Arc;

use super::builder::{ContainerBuilder, WorkerEntry, worker_decls};
use super::shape::{Off, Shape};
use crate::error::{NodeKind, Problem};
use crate::graph::{self, Decl, Input, Shapes};
use crate::ids::IdVec;
use crate::key::Key;
use crate::switch::condition::Condition;
use crate::switch::decide::{self, Ready, Switches};

/// What the switches decide for one build: each switch and each declaration's condition.
pub(crate) struct Plan {
    pub(crate) switches: Switches,
    /// Each declaration's, by its position among the builder's entries.
    entries: Vec<Condition>,
    /// Each worker's, in registration order.
    workers: Vec<Condition>,
    /// Each module's, with its parents'.
    modules: Vec<Condition>,
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
    /// Whether anything here names a switch: a switch, a condition, an override of one.
    fn has_switches(&self, workers: &[WorkerEntry]) -> bool {
        !self.switches.is_empty()
            || !self.switch_overrides.is_empty()
            || self.module_table.iter().any(|m| !m.when.is_empty())
            || workers
                .iter()
                .any(|w| !w.registered.descriptor.when.is_empty())
            || self
                .entries
                .iter()
                .any(|e| !e.registered.descriptor.when.is_empty())
    }

    /// Decides the switches (the settings were read) and gives each declaration its
    /// condition; `None` for an app without switches, which builds as it always did.
    pub(crate) fn plan_shapes(
        &mut self,
        workers: &[WorkerEntry],
        problems: &mut Vec<Problem>,
    ) -> Option<Plan> {
        if !self.has_switches(workers) {
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
        let mut module_conditions: Vec<Condition> = Vec::with_capacity(modules.len());
        for module in modules.iter() {
            let outer = module
                .parent
                .map_or(Condition::ALWAYS, |p| module_conditions[p].clone());
            let parent = module.parent.map(|p| p as u32);
            let condition = switches
                .condition(modules, parent, &module.when, module.location, problems)
                .and_then(|own| outer.and(&own))
                .unwrap_or_else(|| {
                    never(
                        format!("the module `{}`", module.path),
                        module.location,
                        problems,
                    )
                });
            module_conditions.push(condition);
        }
        let condition_of = |descriptor: &crate::descriptor::Descriptor,
                            module: Option<u32>,
                            problems: &mut Vec<Problem>| {
            let outer = module.map_or(Condition::ALWAYS, |m| module_conditions[m as usize].clone());
            if descriptor.when.is_empty() {
                return outer;
            }
            switches
                .condition(
                    modules,
                    module,
                    &descriptor.when,
                    descriptor.location,
                    problems,
                )
                .and_then(|own| outer.and(&own))
                .unwrap_or_else(|| {
                    never(
                        format!("`{}`", descriptor.qualified_name()),
                        descriptor.location,
                        problems,
                    )
                })
        };
        let entries = self
            .entries
            .iter()
            .map(|e| match e.kind {
                // A collection is on in every shape (it holds what is on); an override follows
                // what it replaces.
                NodeKind::Collection | NodeKind::Override => Condition::ALWAYS,
                _ => condition_of(&e.registered.descriptor, e.module, problems),
            })
            .collect();
        let workers = workers
            .iter()
            .map(|w| condition_of(&w.registered.descriptor, w.module, problems))
            .collect();
        Some(Plan {
            switches,
            entries,
            workers,
            modules: module_conditions,
        })
    }

    /// The problems of the graph of every shape at once, with `others` (steps, then routes)
    /// on in every shape.
    pub(crate) fn check_shapes(
        &self,
        plan: &Plan,
        workers: &[WorkerEntry],
        steps: IdVec<crate::ids::StepId, Decl<'_>>,
        routes: Vec<graph::RouteDecl<'_>>,
    ) -> Vec<Problem> {
        let mut of: Vec<Condition> = plan.entries.clone();
        of.extend(std::iter::repeat_n(
            Condition::ALWAYS,
            steps.len() + routes.len(),
        ));
        of.extend(plan.workers.iter().cloned());
        let input = Input {
            providers: self.provider_decls(),
            steps,
            routes: routes.into_iter().chain(worker_decls(workers)).collect(),
            module_table: &self.module_table,
            shapes: Some(Shapes {
                of: &of,
                switches: &plan.switches,
            }),
        };
        match graph::analyze(&input) {
            Ok(_) => Vec::new(),
            Err(problems) => problems,
        }
    }

    /// Leaves out what today's shape has off: declarations, workers, modules (marked, as a
    /// replaced one is), the overrides of keys that are off, and the problems of settings that
    /// are off. Keeps the shape for `explain`.
    pub(crate) fn keep_today(
        &mut self,
        plan: Plan,
        workers: &mut Vec<WorkerEntry>,
        problems: &mut Vec<Problem>,
    ) {
        let Plan {
            switches,
            entries: conditions,
            workers: worker_conditions,
            modules: module_conditions,
        } = plan;
        for (module, condition) in self.module_table.iter_mut().zip(&module_conditions) {
            module.off = !switches.holds(condition);
        }
        let mut off = Vec::new();
        let mut kept: Vec<super::builder::Entry> = Vec::new();
        let mut off_keys: Vec<Key> = Vec::new();
        let mut on_keys: Vec<Key> = Vec::new();
        for (entry, condition) in std::mem::take(&mut self.entries)
            .into_iter()
            .zip(&conditions)
        {
            let keys: Vec<Key> = entry
                .registered
                .descriptor
                .provides
                .iter()
                .map(|s| self.key_of(&entry, &s.key))
                .collect();
            if switches.holds(condition) {
                if entry.kind != NodeKind::Override {
                    on_keys.extend(keys);
                }
                kept.push(entry);
            } else {
                off_keys.extend(keys.iter().cloned());
                off.push(Off {
                    kind: entry.kind,
                    name: entry.registered.descriptor.qualified_name().into_owned(),
                    provides: keys,
                    on: switches.describe(condition),
                    location: entry.registered.descriptor.location,
                });
            }
        }
        // An override of a key that is off today is off with it.
        self.entries = kept
            .into_iter()
            .filter(|e| {
                e.kind != NodeKind::Override
                    || e.registered.descriptor.provides.iter().any(|s| {
                        let key = self.key_of(e, &s.key);
                        on_keys.contains(&key) || !off_keys.contains(&key)
                    })
            })
            .collect();
        let mut kept_workers = Vec::with_capacity(workers.len());
        for (worker, condition) in std::mem::take(workers).into_iter().zip(&worker_conditions) {
            if switches.holds(condition) {
                kept_workers.push(worker);
            } else {
                off.push(Off {
                    kind: NodeKind::Worker,
                    name: worker.registered.descriptor.qualified_name().into_owned(),
                    provides: Vec::new(),
                    on: switches.describe(condition),
                    location: worker.registered.descriptor.location,
                });
            }
        }
        *workers = kept_workers;
        // Settings that are off are not needed today: what reading them found is not a problem.
        let off_settings: Vec<&Key> = off
            .iter()
            .filter(|o| o.kind == NodeKind::Settings)
            .flat_map(|o| &o.provides)
            .collect();
        if !off_settings.is_empty() {
            problems.retain(|p| match p {
                Problem::SettingMissing { settings, .. }
                | Problem::SettingInvalid { settings, .. }
                | Problem::SettingRejected { settings, .. } => !off_settings.contains(&settings),
                _ => true,
            });
        }
        self.shape = Some(Arc::new(Shape { switches, off }));
    }
}
