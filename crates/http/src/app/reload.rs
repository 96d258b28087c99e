//! `App::reload()`: the settings read again, the next generation built beside the serving one
//! and checked, then swapped in whole; the one it replaced disposed (what it alone holds)
//! once its last request is done.

use std::future::Future;
use std::sync::{Arc, PoisonError};

use futures_util::FutureExt;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::reload::Pending;
use green_tea_core::{CheckStatus, Reload, ReloadError};

use super::generations::Retiring;
use super::{App, AppInner};
use crate::health::{Answer, CompiledAsyncCheck};
use crate::runtime::Runtime;

impl App {
    /// Reads the settings again (the sources `build()` read: the environment, the settings
    /// file) and applies what changed without a restart, as a new generation of the app.
    ///
    /// Nothing changed: `Ok(None)`, and nothing happens. Otherwise the fields that changed
    /// must all be marked `#[settings(reload)]` (and read by no switch); then every provider
    /// that depends on a changed settings type is built anew beside the running ones (those
    /// it does not reach are shared), its health checks are asked, and only then is the new
    /// generation swapped in, whole: a request sees one generation from its first step to its
    /// response. Requests in flight finish on the generation they began on, which disposes
    /// what it alone holds once the last of them is done. Workers that need a provider built
    /// anew are stopped and started again on the new generation.
    ///
    /// On any error the generation that was serving serves on, untouched: settings with
    /// problems ([`ReloadError::Invalid`], every problem at once), a changed field that needs
    /// a restart ([`ReloadError::RestartNeeded`], GT0109, refused whole), a build that failed
    /// ([`ReloadError::Failed`]) or a health check that said down
    /// ([`ReloadError::Unhealthy`], GT0110); what the new generation built is disposed.
    ///
    /// One reload runs at a time (a second waits for the first); `close()` waits for one in
    /// progress, and a reload after the close has begun is [`ReloadError::Closed`].
    pub fn reload(&self) -> impl Future<Output = Result<Option<Reload>, ReloadError>> + Send + '_ {
        // Boxed here, as `close()` is: compiled once, in green-tea.
        self.inner.reload().boxed()
    }
}

impl AppInner {
    /// The generation that serves now (the dispatch loads it itself).
    pub(crate) fn runtime(&self) -> Arc<Runtime> {
        self.runtime.load_full()
    }

    /// A reload, in a task of its own: a caller that stops waiting (a timeout around it, a
    /// serve that ends) does not stop it half-way, which would leave what it built undisposed.
    pub(crate) async fn reload(self: &Arc<Self>) -> Result<Option<Reload>, ReloadError> {
        let app = Arc::clone(self);
        match tokio::spawn(async move { app.reload_now().await }).await {
            Ok(outcome) => outcome,
            Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
            // The runtime is shutting down.
            Err(_) => Err(ReloadError::Closed),
        }
    }

    async fn reload_now(&self) -> Result<Option<Reload>, ReloadError> {
        let _one = self.reloads.one_at_a_time.write().await;
        if self.is_closing() {
            return Err(ReloadError::Closed);
        }
        let old = self.runtime.load_full();
        let outcome = self.next_generation(&old).await;
        // What serves is what the sources say: a failure before (a bad save since reverted)
        // is no longer the last word.
        let failure = outcome.as_ref().err().map(ToString::to_string);
        *self
            .reloads
            .last_failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = failure;
        layer::reload::said_how_it_ended(
            outcome.as_ref().map(Option::as_ref),
            self.runtime().container.generation(),
        );
        outcome
    }

    /// Builds, checks and swaps in the generation after `old`.
    async fn next_generation(&self, old: &Arc<Runtime>) -> Result<Option<Reload>, ReloadError> {
        let Some(pending) = layer::reload::next_generation(&old.container).await? else {
            return Ok(None);
        };
        let (reasons, answers) = self.check_generation(old, &pending).await;
        if !reasons.is_empty() {
            let changes = pending.abandon().await;
            return Err(ReloadError::Unhealthy { changes, reasons });
        }
        if self.is_closing() {
            pending.abandon().await;
            return Err(ReloadError::Closed);
        }
        let next = Arc::new(old.next(pending.container().clone()));
        self.runtime.store(Arc::clone(&next));
        let (_, report, moved) = pending.commit(&old.container);
        // The checks' answers are the app's now, in place of the old values'.
        for (check, answer) in answers {
            check.remember(answer);
        }
        // `ready()` waits on the generation it saw: told, it follows to this one.
        layer::workers::health_changed(&old.container);
        self.retire(Arc::clone(old), moved);
        Ok(Some(report))
    }

    /// What the health checks of the values `pending` built anew say, when one says down
    /// (one line each), and the async checks' answers, for the app to keep if `pending`
    /// serves; the others, of values shared with `old`, were checked already.
    async fn check_generation<'a>(
        &'a self,
        old: &Runtime,
        pending: &Pending,
    ) -> (Vec<String>, Vec<(&'a CompiledAsyncCheck, Answer)>) {
        let next = pending.container();
        let anew = |at| match (
            layer::values::value(next, at),
            layer::values::value(&old.container, at),
        ) {
            (Some(now), Some(before)) => !Arc::ptr_eq(now, before),
            (now, _) => now.is_some(),
        };
        let mut reasons = Vec::new();
        for check in (self.health.checks.iter()).filter(|c| anew(c.at)) {
            if let Some(value) = layer::values::value(next, check.at) {
                let answer = (check.ask)(value);
                if answer.status == CheckStatus::Down {
                    let detail = answer.detail.as_deref().unwrap_or("no detail");
                    reasons.push(format!("`{}`: check down: {detail}", check.key));
                }
            }
        }
        let asked = (self.health.async_checks.iter())
            .filter(|c| anew(c.at()))
            .map(|c| async move { (c, c.ask_fresh(next).await) });
        let mut answers = Vec::new();
        for (check, answer) in futures_util::future::join_all(asked).await {
            let Some(answer) = answer else { continue };
            if answer.0.status == CheckStatus::Down {
                let detail = answer.0.detail.as_deref().unwrap_or("no detail");
                reasons.push(format!("`{}`: check down: {detail}", check.key));
            }
            answers.push((check, answer));
        }
        (reasons, answers)
    }

    /// Closes `old` once its last request is done, and the last run of a worker that the
    /// reload moved (`moved`): it disposes what it alone holds.
    fn retire(&self, old: Arc<Runtime>, moved: impl Future<Output = ()> + Send + 'static) {
        old.in_flight.begin_closing();
        let runtime = Arc::clone(&old);
        let task = tokio::spawn(async move {
            tokio::join!(runtime.in_flight.drained(), moved);
            let generation = runtime.container.generation();
            let closed =
                layer::workers::close_within(&runtime.container, layer::workers::Budget::none())
                    .await;
            match &closed {
                Ok(()) => tracing::info!(generation, "the replaced generation is disposed"),
                Err(error) => {
                    tracing::error!(generation, %error, "disposing the replaced generation")
                }
            }
            closed
        });
        let mut retiring = self
            .reloads
            .retiring
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Those done already leave the list.
        retiring.retain(|r| !r.task.is_finished());
        retiring.push(Retiring {
            runtime: Arc::downgrade(&old),
            task,
        });
    }

    /// For `close()` (which has said it is closing): waits up to `wait` for a reload in
    /// progress (one that finishes after sees the close and swaps nothing in), then takes the
    /// generations still retiring, those not disposed yet.
    pub(crate) async fn stop_reloads(
        &self,
        wait: std::time::Duration,
    ) -> (
        Option<tokio::sync::RwLockReadGuard<'_, ()>>,
        Vec<Arc<Runtime>>,
    ) {
        let one = tokio::time::timeout(wait, self.reloads.one_at_a_time.read())
            .await
            .ok();
        if one.is_none() {
            tracing::warn!("close: a reload still building; it will swap nothing in");
        }
        let retiring = std::mem::take(
            &mut *self
                .reloads
                .retiring
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        // Held before its task is stopped (the task held it): a generation whose task had
        // ended is disposed already.
        let retiring = (retiring.into_iter())
            .filter_map(|r| {
                let runtime = r.runtime.upgrade();
                r.task.abort();
                runtime
            })
            .collect();
        (one, retiring)
    }

    /// Holds reloads off while `start()` or a serve starts the generation that serves (a
    /// reload then would replace it under the start).
    pub(crate) async fn hold_reloads(&self) -> tokio::sync::RwLockReadGuard<'_, ()> {
        self.reloads.one_at_a_time.read().await
    }

    /// What the last reload said, if it changed nothing for a failure.
    pub(crate) fn last_reload_failure(&self) -> Option<String> {
        (self.reloads.last_failure.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether `close()` has begun.
    fn is_closing(&self) -> bool {
        *self.runtime().shutdown.borrow()
    }
}
