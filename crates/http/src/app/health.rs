//! `App::health()`: the health model (`crate::health`) of the app, from its container, its
//! close and its compiled checks.

use std::sync::atomic::Ordering;

use green_tea_core::__private::sibling;
use green_tea_core::{CheckStatus, ProviderHealth};

use super::{App, AppInner};
use crate::health::{AppHealth, CheckReport};

impl App {
    /// The app's health now, as data (`serde::Serialize`): each provider built, failed (with
    /// its last build error) or never needed, the registered health checks, each module's
    /// health (its providers and the checks on its keys), and whether the app is live and
    /// ready. Builds nothing.
    ///
    /// Ready means: [`start()`](App::start) has succeeded (or the app is being served), the
    /// app is not closing, and no provider of a key marked
    /// [`critical`](crate::AppBuilder::critical) has its last build failed.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// let app = App::builder()
    ///     .value("db", String::from("postgres://"))
    ///     .critical("db")
    ///     .route(Route::get("/", |_: RequestContext| async { "hi" }).needs::<String>("db"))
    ///     .build()
    ///     .unwrap();
    /// assert!(!app.health().ready); // not started
    /// app.start().await.unwrap();
    /// let health = app.health();
    /// assert!(health.live && health.ready);
    /// assert_eq!(health.providers[0].state.to_string(), "built");
    /// app.close().await.unwrap();
    /// assert!(!app.health().live);
    /// # }
    /// ```
    pub fn health(&self) -> AppHealth {
        self.inner.health()
    }
}

impl AppInner {
    pub(crate) fn health(&self) -> AppHealth {
        let container = self.runtime.container.health();
        let closed = self.close_outcome.initialized();
        let draining = *self.runtime.shutdown.borrow() && !closed;
        let started = self.started.load(Ordering::Acquire);
        let mut reasons = Vec::new();
        if closed {
            reasons.push("the app is closed".to_owned());
        } else if draining {
            reasons.push("the app is draining (close() has begun)".to_owned());
        } else if container.closed {
            reasons.push("the app's container is closed".to_owned());
        }
        if !started {
            reasons.push(
                "not started: start() has not succeeded and the app is not served".to_owned(),
            );
        }
        for key in &self.health.critical {
            // Every declaration of the key counts: its provider, each decorator over it, a
            // list's contributions and collection; the first whose last build failed.
            let failed = container
                .providers
                .iter()
                .filter(|p| p.keys.iter().any(|k| k == key.as_str()))
                .find(|p| p.error.is_some());
            // The error names what failed: `decorator `pooled` (of `db`) failed: ...`.
            if let Some(ProviderHealth {
                error: Some(error), ..
            }) = failed
            {
                reasons.push(format!("critical `{key}`: {error}"));
            }
        }
        let mut modules = container.modules;
        let checks = self
            .health
            .checks
            .iter()
            .map(|c| {
                let check = sibling::value(&self.runtime.container, c.at).map(c.ask);
                let module = c.module.and_then(|m| modules.get_mut(m));
                if let (Some(module), Some(check)) = (module, &check) {
                    let worse = match (module.status, check.status) {
                        (_, CheckStatus::Down) => Some(CheckStatus::Down),
                        (CheckStatus::Up, CheckStatus::Degraded) => Some(CheckStatus::Degraded),
                        _ => None,
                    };
                    if let Some(status) = worse {
                        module.status = status;
                    }
                    if check.status != CheckStatus::Up {
                        let detail = check.detail.as_deref().unwrap_or("no detail");
                        let status = match check.status {
                            CheckStatus::Down => "down",
                            _ => "degraded",
                        };
                        module
                            .reasons
                            .push(format!("check `{}` {status}: {detail}", c.key));
                    }
                }
                CheckReport {
                    key: c.key.to_string(),
                    check,
                    module: module_path(&modules, c.module),
                }
            })
            .collect();
        AppHealth {
            live: !closed,
            ready: reasons.is_empty(),
            reasons,
            started,
            draining,
            closed,
            providers: container.providers,
            critical: self.health.critical.iter().map(|k| k.to_string()).collect(),
            checks,
            modules,
        }
    }
}

/// The path of module `at` among `modules`.
fn module_path(modules: &[green_tea_core::ModuleHealth], at: Option<usize>) -> Option<String> {
    at.and_then(|m| modules.get(m)).map(|m| m.path.clone())
}
