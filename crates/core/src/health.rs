//! The graph's health as data: each provider's state now (built, failed with its last error,
//! never needed...), each module's, and [`HealthCheck`], by which a provider's value reports a
//! state of its own (a circuit breaker's) when the app's health is asked for.

use std::fmt;

use serde::Serialize;

use crate::container::Container;
use crate::error::NodeKind;
use crate::explain::module_of_key;
use crate::worker::{WorkerHealth, WorkerState};

/// The state of every provider of a container, in build order; see [`Container::health`].
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ContainerHealth {
    /// Whether `close()` has begun.
    pub closed: bool,
    /// Every provider, dependencies first: decorators after what they wrap, collections
    /// after their contributions.
    pub providers: Vec<ProviderHealth>,
    /// Every registered module, parents before their sub-modules: its providers' states in
    /// sum.
    pub modules: Vec<ModuleHealth>,
    /// Every worker, in registration order.
    pub workers: Vec<WorkerHealth>,
    /// Every switch with its outcome in this shape (left out of the JSON when there are none):
    /// what decided which declarations are here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches: Vec<SwitchHealth>,
}

/// A switch and its outcome, as health lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SwitchHealth {
    /// Its name (`cacheOn`, `payments::gateway`).
    pub name: String,
    /// Its outcome (`true`, `stripe`).
    pub outcome: String,
}

/// One module's health: its own providers (a sub-module has its own entry); an app adds its
/// health checks.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ModuleHealth {
    /// The module's path (`billing`, `shop::orders`).
    pub path: String,
    /// Down if one of its providers' last build failed or one of its health checks reports
    /// down; degraded if a check reports degraded; up otherwise (a provider never needed is
    /// not a problem).
    pub status: CheckStatus,
    /// How many providers (values, decorators, overrides of its keys) it has.
    pub providers: usize,
    /// How many of them are built now.
    pub built: usize,
    /// What makes it down or degraded, one line each: a failed build's error, a check's
    /// answer.
    pub reasons: Vec<String>,
}

/// One provider's state.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ProviderHealth {
    /// The declaration's name.
    pub name: String,
    /// Provider, value, override, decorator or collection (which `build()` adds for a list
    /// or a map, under its key: `notifiers[]`).
    pub kind: NodeKind,
    /// The keys it provides.
    pub keys: Vec<String>,
    /// Built, failed, never needed...
    pub state: ProviderState,
    /// The error of its last build, if that build failed and none has succeeded since (kept
    /// while a retry is building).
    pub error: Option<String>,
    /// How long its successful build took, in microseconds.
    pub build_micros: Option<u64>,
    /// The path of the module whose keys it provides (`billing`; an override of
    /// `billing::client` is `billing`'s too), or `None` for the app's root.
    pub module: Option<String>,
}

/// Where a provider is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProviderState {
    /// Never needed so far: nothing asked for its values (a lazy app builds a provider on the
    /// first request that needs it).
    NotBuilt,
    /// A build is running now.
    Building,
    /// Built; its values are served.
    Built,
    /// Its last build failed (the error is in [`ProviderHealth::error`]); the next request
    /// that needs it tries again.
    Failed,
    /// Built, then disposed by `close()`.
    Disposed,
    /// Every key it provides is taken over by an override: it is never built.
    Replaced,
}

impl fmt::Display for ProviderState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderState::NotBuilt => "not built",
            ProviderState::Building => "building",
            ProviderState::Built => "built",
            ProviderState::Failed => "failed",
            ProviderState::Disposed => "disposed",
            ProviderState::Replaced => "replaced",
        })
    }
}

impl Container {
    /// Every provider's state now, dependencies first, each module's, and whether the
    /// container is closed. Reads the providers' slots and builds nothing.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use green_tea::{Container, ProviderFn};
    /// use green_tea::health::ProviderState;
    /// let container = Container::builder()
    ///     .value("greeting", String::from("hello"))
    ///     .provider(ProviderFn::new("db", |_| async { Err::<u32, _>("refused".into()) }))
    ///     .build()
    ///     .unwrap();
    /// assert!(container.get::<u32>("db").await.is_err());
    /// let health = container.health();
    /// let db = health.providers.iter().find(|p| p.name == "db").unwrap();
    /// assert_eq!(db.state, ProviderState::Failed);
    /// assert!(db.error.as_deref().unwrap().contains("refused"));
    /// let greeting = health.providers.iter().find(|p| p.keys == ["greeting"]).unwrap();
    /// assert_eq!(greeting.state, ProviderState::NotBuilt);
    /// # container.close().await.unwrap(); }
    /// ```
    pub fn health(&self) -> ContainerHealth {
        let inner = &self.inner;
        let mut modules: Vec<ModuleHealth> = inner
            .modules
            .iter()
            .map(|m| ModuleHealth {
                path: m.path.to_string(),
                status: CheckStatus::Up,
                providers: 0,
                built: 0,
                reasons: Vec::new(),
            })
            .collect();
        let providers = inner
            .order
            .iter()
            // Today's providers: what is off is listed by `explain_switches`.
            .filter(|&&id| inner.is_on(id))
            .map(|&id| {
                let node = &inner.providers[id];
                let slot = &inner.slots[id];
                let error = slot.last_error();
                // Taken over: no key resolves to it and nothing needs it. (A key's provider
                // under decorators, or a list's contributor, is what the key does not
                // resolve to, but a decorator or the collection needs it.)
                let replaced = !node.descriptor.provides.is_empty()
                    && inner.dependents[id].is_empty()
                    && node
                        .descriptor
                        .provides
                        .iter()
                        .all(|s| inner.keys.get(&s.key).is_none_or(|at| at.provider != id));
                let state = if slot.is_disposed() {
                    ProviderState::Disposed
                } else if slot.is_built() {
                    ProviderState::Built
                } else if slot.is_building() {
                    ProviderState::Building
                } else if error.is_some() {
                    ProviderState::Failed
                } else if replaced {
                    ProviderState::Replaced
                } else {
                    ProviderState::NotBuilt
                };
                // An override of a module's key is the module's, though the app registers it.
                let module = node.module.map(|m| m as usize).or_else(|| {
                    let key = node.descriptor.provides.first()?;
                    (node.kind == NodeKind::Override)
                        .then(|| module_of_key(&inner.modules, key.key.as_str()))?
                });
                if let Some(health) = module.map(|m| &mut modules[m]) {
                    health.providers += 1;
                    health.built += usize::from(state == ProviderState::Built);
                    if let Some(error) = error.as_ref().filter(|_| state == ProviderState::Failed) {
                        health.status = CheckStatus::Down;
                        health.reasons.push(error.to_string());
                    }
                }
                ProviderHealth {
                    name: node.descriptor.name.to_string(),
                    kind: node.kind,
                    keys: node
                        .descriptor
                        .provides
                        .iter()
                        .map(|s| s.key.to_string())
                        .collect(),
                    state,
                    error: error.map(|e| e.to_string()),
                    build_micros: slot
                        .build_time()
                        .map(|t| u64::try_from(t.as_micros()).unwrap_or(u64::MAX)),
                    module: module.map(|m| inner.modules[m].path.to_string()),
                }
            })
            .collect();
        let workers = inner
            .workers
            .nodes
            .iter()
            .map(|node| {
                let module = node
                    .module
                    .map(|m| inner.modules[m as usize].path.to_string());
                let health = node.health(module);
                if let Some(module) = node.module.map(|m| &mut modules[m as usize]) {
                    // A worker that is not running, and is not meant to be, is no problem;
                    // one that failed (or waits to restart after failing) is.
                    let status = match health.state {
                        WorkerState::Failed | WorkerState::Abandoned => Some(CheckStatus::Down),
                        WorkerState::Restarting => Some(CheckStatus::Degraded),
                        _ => None,
                    };
                    if let Some(status) = status {
                        if status == CheckStatus::Down || module.status == CheckStatus::Up {
                            module.status = status;
                        }
                        module.reasons.push(format!(
                            "worker `{}` {}: {}",
                            health.name,
                            health.state,
                            health.last_error.as_deref().unwrap_or("no error")
                        ));
                    }
                }
                health
            })
            .collect();
        ContainerHealth {
            closed: self.is_closed(),
            providers,
            modules,
            workers,
            // Read from today's shape (the health route asks often; explain's text is not needed).
            switches: (inner.shape.iter())
                .flat_map(|shape| &shape.switches.table)
                .map(|s| SwitchHealth {
                    name: s.name.clone(),
                    outcome: s
                        .outcome
                        .map(|o| s.outcomes[o as usize].to_string())
                        .unwrap_or_default(),
                })
                .collect(),
        }
    }
}

/// A provider's value that reports a state of its own in the app's health (a circuit
/// breaker: closed, open, half-open). Register it on the app builder with the key that holds
/// it (`AppBuilder::health_check::<T>("billing")`); the app asks it on every `health()` while
/// the value is built, and never builds it to ask.
///
/// `check` runs on the health route's request: it reads state it already has, it does not
/// call out.
///
/// ```
/// use green_tea::health::{Check, HealthCheck};
/// struct Breaker { open: bool }
/// impl HealthCheck for Breaker {
///     fn check(&self) -> Check {
///         if self.open { Check::down("open") } else { Check::up().detail("closed") }
///     }
/// }
/// assert_eq!(Breaker { open: true }.check(), Check::down("open"));
/// ```
#[diagnostic::on_unimplemented(
    note = "a health check is a provider's value type that implements `green_tea::HealthCheck`"
)]
pub trait HealthCheck: Send + Sync + 'static {
    /// The value's state now.
    fn check(&self) -> Check;
}

/// What a [`HealthCheck`] reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Check {
    /// Up, degraded or down.
    pub status: CheckStatus,
    /// Free text for the operator, such as a breaker's state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A [`Check`]'s verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CheckStatus {
    /// Working.
    Up,
    /// Working with less: local state only, a fallback.
    Degraded,
    /// Not working (a breaker that is open).
    Down,
}

impl Check {
    /// Working.
    pub fn up() -> Self {
        Check {
            status: CheckStatus::Up,
            detail: None,
        }
    }

    /// Working with less, and why.
    pub fn degraded(detail: impl Into<String>) -> Self {
        Check {
            status: CheckStatus::Degraded,
            detail: Some(detail.into()),
        }
    }

    /// Not working, and why.
    pub fn down(detail: impl Into<String>) -> Self {
        Check {
            status: CheckStatus::Down,
            detail: Some(detail.into()),
        }
    }

    /// With `detail` for the operator.
    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}
