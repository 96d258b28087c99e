//! `App::health()`: the graph's state (each provider built, failed or never needed), the
//! health checks of providers' values (the async ones' timeout, cache and single flight in
//! `async_check`), each module's health, and whether the app is live and ready; as data.

mod async_check;

use serde::Serialize;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::values::{AnyValue, AppValue};
use green_tea_core::workers::WorkerHealth;
use green_tea_core::{
    Check, CheckTiming, Container, HealthCheck, Key, Location, ModuleHealth, ProviderHealth,
    TypeInfo,
};

pub(crate) use async_check::{
    Answer, Asked, AsyncCheckSetting, CompiledAsyncCheck, ask as ask_async,
};

/// GT0108: [`App::ready`](crate::App::ready) was waiting, and the app will never be ready: it
/// began to close (or its start failed, which closes it), or a critical worker ended for good
/// (failed and not restarted, stopped, finished or abandoned).
#[derive(Clone, Debug, thiserror::Error)]
#[error("error[GT0108]: the app will not be ready: {}", .reasons.join("; "))]
#[non_exhaustive]
pub struct NotReady {
    /// Why it was not ready when it began to close, as its health said (`reasons`).
    pub reasons: Vec<String>,
}

impl NotReady {
    /// The error code, `"GT0108"`, with a page `docs/errors/GT0108.md`.
    pub fn code(&self) -> &'static str {
        "GT0108"
    }
}

/// The app's health now; see [`App::health`](crate::App::health).
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct AppHealth {
    /// Until `close()` has finished: the process answers and should not be restarted.
    pub live: bool,
    /// Should get traffic: started (or serving), not closing, no critical provider's last
    /// build failed, and no async health check of a critical key reports down.
    pub ready: bool,
    /// Why it is not ready, one line each (empty when ready).
    pub reasons: Vec<String>,
    /// `start()` has succeeded, or the app is being served.
    pub started: bool,
    /// `close()` has begun and has not finished: requests in flight finish, new ones get 503.
    pub draining: bool,
    /// `close()` has finished.
    pub closed: bool,
    /// Every provider, dependencies first.
    pub providers: Vec<ProviderHealth>,
    /// The keys marked critical (`AppBuilder::critical`).
    pub critical: Vec<String>,
    /// What each registered health check reports: the synchronous ones
    /// (`AppBuilder::health_check`) in the order they were registered, then the async ones
    /// (`AppBuilder::async_health_check`) in theirs.
    pub checks: Vec<CheckReport>,
    /// Every registered module, parents before their sub-modules: its providers' states and
    /// its health checks (those on its keys) in sum.
    pub modules: Vec<ModuleHealth>,
    /// Every worker, in registration order: its state, failures and restarts.
    pub workers: Vec<WorkerHealth>,
    /// Every switch with its outcome in this shape (left out of the JSON when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches: Vec<green_tea_core::SwitchHealth>,
    /// The generation that serves: 0 until a [`reload`](crate::App::reload) takes effect,
    /// one more for each that does.
    pub generation: u64,
    /// What the last reload said when it changed nothing for a failure (its settings'
    /// problems, a restart needed, a build or a check that failed); `None` before any
    /// reload, and after one that took effect or found nothing changed (left out of the JSON
    /// then). It does not make the app unready: the generation before serves on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reload_failure: Option<String>,
}

/// One health check's answer.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct CheckReport {
    /// The key whose value was asked.
    pub key: String,
    /// Its answer; `None` while the value is not built (it is never built to be asked), and
    /// for an async check once the app's container is closed.
    pub check: Option<Check>,
    /// The path of the module whose key it is (`billing` for `billing::breaker`), or `None`
    /// for a key of the app's root.
    pub module: Option<String>,
    /// For an async check that was asked: how old its answer is, in milliseconds, when this
    /// health was made (0 for an answer made for it). `None` (and left out of the JSON) for
    /// a synchronous check, asked anew each time, and for a check that was not asked (its
    /// value not built, or the app closed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_millis: Option<u64>,
    /// For an async check that was asked: `true` if its answer was kept from an earlier
    /// check (younger than its cache interval), `false` if the check ran for this health
    /// (started by it, or by a concurrent one it waited for). `None` (and left out of the
    /// JSON) like `age_millis`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<bool>,
}

/// What the builder collected: checked at `build()` against the graph.
#[derive(Default)]
pub(crate) struct HealthSettings {
    pub(crate) critical: Vec<(Key, Location)>,
    pub(crate) checks: Vec<CheckSetting>,
    /// The async checks, each with the timing it was registered with.
    pub(crate) async_checks: Vec<AsyncCheckSetting>,
    /// What an async check's timing leaves unset (`AppBuilder::health_check_timeout`,
    /// `health_check_cache`); unset here, `CheckTiming`'s defaults.
    pub(crate) async_check_timing: CheckTiming,
}

pub(crate) struct CheckSetting {
    pub(crate) key: Key,
    pub(crate) location: Location,
    pub(crate) ty: TypeInfo,
    pub(crate) ask: Ask,
}

/// The settings, resolved against the built container.
#[derive(Default)]
pub(crate) struct CompiledHealth {
    pub(crate) critical: Vec<Key>,
    pub(crate) checks: Vec<CompiledCheck>,
    /// The async checks, each with its cache; empty in most apps, whose health is then
    /// made without awaiting anything.
    pub(crate) async_checks: Vec<CompiledAsyncCheck>,
}

/// A health check, resolved: its key, its value, how to ask it, and the module whose key it
/// is (its position among the container's modules).
pub(crate) struct CompiledCheck {
    pub(crate) key: Key,
    pub(crate) at: AppValue,
    pub(crate) ask: Ask,
    pub(crate) module: Option<usize>,
}

/// How a health check asks a value (of the type it was registered with).
type Ask = fn(&AnyValue) -> Check;

/// A health check's question, for values of type `T`.
pub(crate) fn ask<T: HealthCheck>(value: &AnyValue) -> Check {
    match value.downcast_ref::<T>() {
        Some(value) => value.check(),
        // The type was checked at build (GT0009).
        None => Check::down("the value is not of the health check's type"),
    }
}

impl HealthSettings {
    /// The settings' problems against the graph `builder` declares (GT0009).
    pub(crate) fn problems(
        &self,
        builder: &green_tea_core::ContainerBuilder,
    ) -> Vec<green_tea_core::Problem> {
        let critical = self.critical.iter().filter_map(|(key, location)| {
            layer::build::health_key_problem(
                builder,
                key,
                None,
                format!("`critical(\"{key}\")`"),
                *location,
            )
        });
        let checks = self.checks.iter().filter_map(|c| {
            layer::build::health_key_problem(
                builder,
                &c.key,
                Some(c.ty),
                format!("`health_check::<{}>(\"{}\")`", c.ty.short_name(), c.key),
                c.location,
            )
        });
        let async_checks = self.async_checks.iter().filter_map(|p| {
            layer::build::health_key_problem(
                builder,
                &p.key,
                Some(p.ty),
                format!(
                    "`async_health_check::<{}>(\"{}\")`",
                    p.ty.short_name(),
                    p.key
                ),
                p.location,
            )
        });
        critical.chain(checks).chain(async_checks).collect()
    }

    /// Resolved against `container` (after the checks passed).
    pub(crate) fn compile(self, container: &Container) -> CompiledHealth {
        let defaults = self.async_check_timing;
        let module_of = |key: &Key| {
            layer::modules::module_of_key(container, key.as_str())
                .and_then(|m| layer::modules::module_paths(container).position(|p| *p == m))
        };
        CompiledHealth {
            async_checks: self
                .async_checks
                .into_iter()
                .filter_map(|p| {
                    let at = layer::values::locate(container, p.key.as_str())?;
                    let module = module_of(&p.key);
                    Some(CompiledAsyncCheck::new(p, at, module, defaults))
                })
                .collect(),
            critical: self.critical.into_iter().map(|(key, _)| key).collect(),
            checks: self
                .checks
                .into_iter()
                .filter_map(|c| {
                    let at = layer::values::locate(container, c.key.as_str())?;
                    let module = module_of(&c.key);
                    Some(CompiledCheck {
                        key: c.key,
                        at,
                        ask: c.ask,
                        module,
                    })
                })
                .collect(),
        }
    }
}
