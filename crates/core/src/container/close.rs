//! `close()`: wait for builds in flight, then dispose every built provider, dependents first.

use futures_util::FutureExt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::future::join_all;
use tokio::task::JoinError;
use tracing::Instrument;

use super::{Container, Inner};
use crate::budget::Budget;
use crate::error::{CloseError, CloseFailure, ClosePart, FailureCause, join_message};
use crate::ids::{IdVec, ProviderId};

impl Container {
    /// Disposes every built provider, dependents before their dependencies, each under the
    /// dispose timeout; see [`ContainerBuilder::dispose_timeout`](crate::ContainerBuilder::dispose_timeout).
    ///
    /// Builds still running are awaited (bounded by the dispose timeout) so their values are
    /// disposed too. A dispose that fails, panics or hangs is reported in the [`CloseError`]
    /// and never stops another. Closing twice, or concurrently, disposes once and returns the
    /// same outcome. After `close`, [`get`](Self::get) returns [`ProvideError::Closed`](crate::ProvideError::Closed).
    /// A [`reload`](Self::reload) in progress is waited for first, and swaps nothing in; a
    /// generation a reload replaced waits for the worker runs the reload moved off it.
    ///
    /// The timeouts are tokio's: call it on a runtime with the time driver (`enable_time` or
    /// `enable_all`, as `#[tokio::main]` and `#[tokio::test]` build). Without one, it disposes
    /// nothing and returns a `CloseError` whose failure quotes tokio's "timers are disabled".
    pub fn close(&self) -> impl Future<Output = Result<(), CloseError>> + Send + '_ {
        // Boxed here: the close is compiled once, in green-tea, not in each crate that awaits
        // it (closures and `async` bodies are compiled where they are first used).
        self.close_once(Budget::none()).boxed()
    }

    /// [`close`](Self::close) within what is left of a shutdown's `budget` (an app's close,
    /// after its drain, workers and hooks): each wait its own cap or what is left, whichever
    /// is shorter; a dispose the budget cuts is [`FailureCause::OutOfBudget`].
    pub(crate) fn close_within(
        &self,
        budget: Budget,
    ) -> impl Future<Output = Result<(), CloseError>> + Send + '_ {
        self.close_once(budget).boxed()
    }

    async fn close_once(&self, budget: Budget) -> Result<(), CloseError> {
        self.inner.closing.store(true, Ordering::Release);
        let inner = Arc::clone(&self.inner);
        self.inner
            .close_outcome
            .get_or_init(|| async move {
                // A task of its own, so a caller that stops waiting does not stop the close.
                let task = tokio::spawn(close(Arc::clone(&inner), budget));
                task.await.unwrap_or_else(|join| {
                    Err(CloseError {
                        failures: vec![task_failure(join)],
                    })
                })
            })
            .await
            .clone()
    }
}

async fn close(inner: Arc<Inner>, budget: Budget) -> Result<(), CloseError> {
    // A container on its own: a reload in progress settles first (one that had not swapped in
    // saw `closing` and keeps its generation out; one that had replaced this generation,
    // which then closes as a replaced one, having noted what to wait for). Not a generation
    // a reload is still building (one that fails is closed under the reload's own hold), and
    // never an app's, which waits for its reloads itself, within its drain's share.
    let pending = inner.generation > inner.lineage.number();
    if !inner.lineage.is_app() && !pending {
        drop(inner.lineage.one_reload().await);
    }
    // Workers first, before anything they need is disposed (an app has stopped them already,
    // after its drain: then this waits for nothing and reports nothing twice).
    // A generation a reload replaced (or one never committed) leaves them running on the
    // generation that serves.
    let mut failures = match inner.serves() {
        true => inner.workers.stop(budget).await,
        false => {
            // A container's reload left it the runs it moved to wait for (an app waits for
            // them itself): signalled, they end within the workers' stop timeout.
            if let Some(moved) = inner.lineage.take_moved(inner.generation) {
                moved.await;
            }
            Vec::new()
        }
    };
    inner.closed.store(true, Ordering::Release);
    inner.changes.send_replace(());
    tracing::info!("closing: disposing built providers, dependents first");
    await_builds_in_flight(&inner, budget).await;

    for wave in dispose_waves(&inner) {
        let disposes = wave.into_iter().map(|id| dispose(&inner, id, budget));
        failures.extend(join_all(disposes).await.into_iter().flatten());
    }
    if failures.is_empty() {
        tracing::info!("closed");
        Ok(())
    } else {
        let error = CloseError { failures };
        tracing::error!(%error, "closed with failures");
        Err(error)
    }
}

/// A build that finishes after `close` began must still be disposed, so wait for each one,
/// bounded by the dispose timeout; a build that does not finish by then is aborted.
async fn await_builds_in_flight(inner: &Inner, budget: Budget) {
    let flights: Vec<_> = inner
        .providers
        .iter_enumerated()
        .filter_map(|(id, n)| inner.slots[id].flight().clone().map(|f| (n, f)))
        .collect();
    for (node, mut flight) in flights {
        let (wait, _) = budget.limit(inner.dispose_timeout);
        let finished = tokio::time::timeout(wait, flight.done.wait_for(Option::is_some)).await;
        if finished.is_err() {
            tracing::warn!(
                provider = %node.descriptor.qualified_name(),
                "build still running at close; aborted"
            );
            flight.abort.abort();
        }
    }
}

/// Groups the built nodes so that every node comes in a later wave than all its built
/// dependents. Nodes in one wave do not depend on each other and are disposed concurrently.
fn dispose_waves(inner: &Inner) -> Vec<Vec<ProviderId>> {
    let mut wave_of = IdVec::filled(0_usize, inner.providers.len());
    let mut waves: Vec<Vec<ProviderId>> = Vec::new();
    // Dependents come after their dependencies in `order`, so walking it backwards sees every
    // dependent before the nodes it depends on.
    for &id in inner.order.iter().rev() {
        if !inner.slots[id].is_built() {
            continue;
        }
        let wave = inner.dependents[id]
            .iter()
            .filter(|&&d| inner.slots[d].is_built())
            .map(|&d| wave_of[d] + 1)
            .max()
            .unwrap_or(0);
        wave_of[id] = wave;
        if waves.len() <= wave {
            waves.resize_with(wave + 1, Vec::new);
        }
        waves[wave].push(id);
    }
    waves
}

/// Disposes node `id` once, in a task of its own so that a panic is caught and a hang can be
/// abandoned at the timeout.
async fn dispose(inner: &Inner, id: ProviderId, budget: Budget) -> Option<CloseFailure> {
    let node = &inner.providers[id];
    let slot = &inner.slots[id];
    let provided = slot.values()?.clone();
    if !slot.claim_dispose() {
        return None;
    }
    let provider = Arc::clone(&node.provider);
    // Named as its provide span names it: qualified by its module, as its keys are.
    let span = tracing::info_span!(
        "dispose",
        provider = %node.descriptor.qualified_name(),
        keys = %node.keys_text()
    );
    #[cfg(feature = "metrics")]
    let started = std::time::Instant::now();
    let mut task =
        tokio::spawn(async move { provider.dispose(&provided).await }.instrument(span.clone()));
    let (wait, ran_out) = budget.limit(inner.dispose_timeout);
    let cause = match tokio::time::timeout(wait, &mut task).await {
        Ok(Ok(Ok(()))) => {
            #[cfg(feature = "metrics")]
            node.metrics
                .disposed(&node.descriptor, started.elapsed(), None, !inner.serves());
            span.in_scope(|| tracing::info!("disposed"));
            return None;
        }
        Ok(Ok(Err(error))) => FailureCause::Error(Arc::new(error)),
        Ok(Err(join)) => FailureCause::Panicked(join_message(join)),
        Err(_elapsed) => {
            task.abort();
            ran_out
        }
    };
    #[cfg(feature = "metrics")]
    node.metrics.disposed(
        &node.descriptor,
        started.elapsed(),
        Some(&cause),
        !inner.serves(),
    );
    span.in_scope(|| tracing::error!(%cause, "dispose failed"));
    Some(CloseFailure {
        part: ClosePart::Provider {
            name: node.descriptor.qualified_name().into_owned(),
            keys: node.descriptor.provided_keys(),
        },
        cause,
    })
}

/// The close task itself failed (it panicked or the runtime is shutting down).
fn task_failure(join: JoinError) -> CloseFailure {
    CloseFailure {
        part: ClosePart::Provider {
            name: "(the close task)".to_owned(),
            keys: Vec::new(),
        },
        cause: FailureCause::Panicked(join_message(join)),
    }
}
