//! `App::health()`: the health model (`crate::health`) of the app, from its container, its
//! close, its compiled checks and the answers of its async checks.

use futures_util::FutureExt;
use std::future::Future;
use std::sync::atomic::Ordering;

use green_tea_core::__private::layer;
use green_tea_core::workers::WorkerState;
use green_tea_core::{Check, CheckStatus, Key, ModuleHealth, ProviderHealth};

use super::{App, AppInner};
use crate::health::{AppHealth, Asked, CheckReport};
use crate::runtime::Runtime;

impl App {
    /// The app's health now, as data (`serde::Serialize`): each provider built, failed (with
    /// its last build error) or never needed, the registered health checks, each module's
    /// health (its providers and the checks on its keys), and whether the app is live and
    /// ready. Builds nothing.
    ///
    /// An `async fn` because of the [async health checks](crate::AppBuilder::async_health_check):
    /// it runs, concurrently, each one whose last answer is older than its cache interval
    /// (each under its timeout; callers at the same time share one run of a check), and
    /// waits for them. In an app without async checks it awaits nothing: its answer is ready
    /// at the first poll, as the synchronous `health()` it replaces was.
    ///
    /// Ready means: [`start()`](App::start) has succeeded (or the app is being served), the
    /// app is not closing, no provider of a key marked
    /// [`critical`](crate::AppBuilder::critical) has its last build failed, and no async
    /// health check of a critical key reports down, and every
    /// [critical worker](green_tea_core::workers::WorkerOptions::critical) is running.
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
    /// assert!(!app.health().await.ready); // not started
    /// app.start().await.unwrap();
    /// let health = app.health().await;
    /// assert!(health.live && health.ready);
    /// assert_eq!(health.providers[0].state.to_string(), "built");
    /// app.close().await.unwrap();
    /// assert!(!app.health().await.live);
    /// # }
    /// ```
    pub fn health(&self) -> impl Future<Output = AppHealth> + Send + '_ {
        // Boxed here, as `close()` is: the checks are compiled once, in green-tea.
        self.inner.health().boxed()
    }
}

impl App {
    /// Resolves when the app is first ready: when the readiness route would first answer
    /// 200 (see [`health`](Self::health) for what ready means). For a test or a sidecar that
    /// must not send traffic before then, and for a `main` that serves in one task and waits
    /// in another:
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// use green_tea::App;
    /// use green_tea::routing::Route;
    /// let app = App::builder()
    ///     .value("db", String::from("postgres://"))
    ///     .critical("db")
    ///     .route(Route::get("/", |_| async { "hi" }).needs::<String>("db"))
    ///     .build()
    ///     .unwrap();
    /// let starting = tokio::spawn({
    ///     let app = app.clone();
    ///     async move { app.start().await }
    /// });
    /// app.ready().await.unwrap(); // once the start succeeded
    /// assert!(app.health().await.ready);
    /// starting.await.unwrap().unwrap();
    /// app.close().await.unwrap();
    /// assert!(app.ready().await.unwrap_err().to_string().contains("will not be ready"));
    /// # }
    /// ```
    ///
    /// It waits for what changes readiness (the start, a build ending, a critical worker's
    /// state; an async check is asked again when its last answer's cache interval has
    /// passed), never on a timer of its own; it has no timeout: bound it with
    /// `tokio::time::timeout` where waiting forever is wrong. If the app begins to close
    /// before it is ready (a failed start closes it), or a critical worker ends for good, it
    /// never will be: the error (GT0108) says why it was not.
    pub fn ready(&self) -> impl Future<Output = Result<(), crate::health::NotReady>> + Send + '_ {
        self.inner.ready().boxed()
    }
}

impl AppInner {
    async fn ready(&self) -> Result<(), crate::health::NotReady> {
        // The changes of the generation that serves; a reload swaps in another (and tells
        // the one it replaced, so that this wakes and follows).
        let mut watched = self.runtime();
        let mut changes = layer::workers::health_changes(&watched.container);
        let mut closing = self.runtime().shutdown.subscribe();
        // When an async check of a critical key that said down may say otherwise (no sooner
        // than every 100 ms: a check cached for less is not asked in a loop).
        let recheck = (self.health.async_checks.iter())
            .filter(|check| self.health.critical.contains(&check.key))
            .map(|check| check.cache_for().max(std::time::Duration::from_millis(100)))
            .min();
        loop {
            let serving = self.runtime();
            if !std::sync::Arc::ptr_eq(&serving, &watched) {
                changes = layer::workers::health_changes(&serving.container);
                watched = serving;
            }
            changes.borrow_and_update();
            let health = self.health().await;
            if health.ready {
                return Ok(());
            }
            // A critical worker that will not run again (failed and not restarted, returned,
            // stopped, abandoned) keeps the app from ever being ready, as a close does.
            let ended = (health.workers.iter()).any(|w| {
                w.critical
                    && matches!(
                        w.state,
                        WorkerState::Failed
                            | WorkerState::Finished
                            | WorkerState::Stopped
                            | WorkerState::Abandoned
                    )
            });
            if health.closed || health.draining || ended || *closing.borrow_and_update() {
                return Err(crate::health::NotReady {
                    reasons: health.reasons,
                });
            }
            let asked_again = async {
                match recheck {
                    Some(after) => tokio::time::sleep(after).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = changes.changed() => {}
                _ = closing.changed() => {}
                () = asked_again => {}
            }
        }
    }

    /// Whether the app has async health checks, which its health must await.
    pub(crate) fn has_async_checks(&self) -> bool {
        !self.health.async_checks.is_empty()
    }

    /// The app's health, its async checks asked (those due run, concurrently).
    pub(crate) async fn health(&self) -> AppHealth {
        if !self.has_async_checks() {
            return self.health_with(Vec::new());
        }
        // One generation for the whole report, its checks' answers included.
        let runtime = self.runtime();
        let asked = futures_util::future::join_all(
            (self.health.async_checks.iter()).map(|p| p.ask(&runtime.container)),
        )
        .await;
        self.health_on(&runtime, asked)
    }

    /// The app's health with `asked`, the async checks' answers (one per async check, in
    /// order), awaiting nothing. Empty `asked` leaves the async checks out: for an app
    /// without any, and for the liveness route, which reads no check.
    pub(crate) fn health_with(&self, asked: Vec<Option<Asked>>) -> AppHealth {
        self.health_on(&self.runtime(), asked)
    }

    /// [`health_with`](Self::health_with), of the generation `runtime`.
    fn health_on(&self, runtime: &Runtime, asked: Vec<Option<Asked>>) -> AppHealth {
        let container = runtime.container.health();
        let Liveness {
            closed, draining, ..
        } = self.liveness();
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
        let mut checks: Vec<CheckReport> = self
            .health
            .checks
            .iter()
            .map(|c| {
                let check = layer::values::value(&runtime.container, c.at).map(c.ask);
                if let Some(check) = &check {
                    count_in_module(&mut modules, c.module, &c.key, check);
                }
                CheckReport {
                    key: c.key.to_string(),
                    check,
                    module: module_path(&modules, c.module),
                    age_millis: None,
                    cached: None,
                }
            })
            .collect();
        if !asked.is_empty() {
            let now = tokio::time::Instant::now();
            checks.reserve(asked.len());
            for (async_check, asked) in self.health.async_checks.iter().zip(asked) {
                if let Some(Asked { check, .. }) = &asked {
                    count_in_module(&mut modules, async_check.module, &async_check.key, check);
                    if check.status == CheckStatus::Down
                        && self.health.critical.contains(&async_check.key)
                    {
                        let detail = check.detail.as_deref().unwrap_or("no detail");
                        reasons.push(format!(
                            "critical `{}`: check down: {detail}",
                            async_check.key
                        ));
                    }
                }
                let age = asked.as_ref().map(|a| now.saturating_duration_since(a.at));
                checks.push(CheckReport {
                    key: async_check.key.to_string(),
                    module: module_path(&modules, async_check.module),
                    age_millis: age.map(|a| u64::try_from(a.as_millis()).unwrap_or(u64::MAX)),
                    cached: asked.as_ref().map(|a| a.cached),
                    check: asked.map(|a| a.check),
                });
            }
        }
        // A critical worker that is not running (not started yet, failed, waiting to restart,
        // stopped) makes the app not ready.
        reasons.extend(
            container
                .workers
                .iter()
                .filter(|w| w.critical && w.state != WorkerState::Running)
                .map(|w| match &w.last_error {
                    Some(error) => format!("critical worker `{}` {}: {error}", w.name, w.state),
                    None => format!("critical worker `{}` {}", w.name, w.state),
                }),
        );
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
            workers: container.workers,
            switches: container.switches,
            generation: runtime.container.generation(),
            reload_failure: self.last_reload_failure(),
        }
    }
}

/// What the liveness route says: three flags, read without building the app's health (a
/// probe asked every few seconds under load must stay cheap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
// (Fields in the order the route has always written them.)
pub(crate) struct Liveness {
    /// `close()` has finished.
    pub(crate) closed: bool,
    /// `close()` has begun and not finished.
    pub(crate) draining: bool,
    /// Until `close()` has finished.
    pub(crate) live: bool,
}

impl AppInner {
    /// Whether the app is live, draining or closed: the liveness route's answer, and the
    /// same flags [`health_with`](Self::health_with) reports.
    pub(crate) fn liveness(&self) -> Liveness {
        let closed = self.close_outcome.initialized();
        Liveness {
            closed,
            draining: *self.runtime().shutdown.borrow() && !closed,
            live: !closed,
        }
    }
}

/// `check`, the answer of the check on `key`, counted in the health of module `at` (if the
/// key is a module's): a down answer makes it down, a degraded one degraded, and either is
/// one of its reasons.
fn count_in_module(modules: &mut [ModuleHealth], at: Option<usize>, key: &Key, check: &Check) {
    let Some(module) = at.and_then(|m| modules.get_mut(m)) else {
        return;
    };
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
            .push(format!("check `{key}` {status}: {detail}"));
    }
}

/// The path of module `at` among `modules`.
fn module_path(modules: &[ModuleHealth], at: Option<usize>) -> Option<String> {
    at.and_then(|m| modules.get(m)).map(|m| m.path.clone())
}
