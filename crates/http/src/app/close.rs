//! `App::close()`: stop accepting, drain requests in flight, stop the workers, run modules'
//! `on_shutdown` hooks (in reverse registration order), then close the container (dispose in
//! reverse).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::failures::{join_message, panic_message};
use green_tea_core::__private::layer::workers::Budget;
use green_tea_core::{CloseError, CloseFailure, ClosePart, FailureCause};

use super::{App, AppInner};

impl App {
    /// Closes the app: new requests get 503 and servers stop accepting; requests in flight
    /// finish (bounded by the drain timeout); the workers get their shutdown signal and stop
    /// (bounded by the worker stop timeout); modules' `on_shutdown` hooks run, last
    /// registered first; then every built provider is disposed, dependents first.
    ///
    /// Every failure along the way lands in one [`CloseError`] and stops nothing else.
    /// Idempotent: a second or concurrent call returns the same outcome. Like
    /// [`Container::close`](green_tea_core::Container::close), it needs a runtime with tokio's
    /// timers (for the drain and dispose timeouts).
    pub fn close(&self) -> impl Future<Output = Result<(), CloseError>> + Send + '_ {
        // Boxed here, so that the close (the drain, the workers' stop, the dispose waves) is
        // compiled once, in green-tea, not in each crate that awaits it.
        self.close_once().boxed()
    }

    async fn close_once(&self) -> Result<(), CloseError> {
        let inner = Arc::clone(&self.inner);
        self.inner
            .close_outcome
            .get_or_init(|| async move {
                // A task of its own, so a caller that stops waiting does not stop the close.
                tokio::spawn(close(inner)).await.unwrap_or_else(|join| {
                    Err(CloseError {
                        failures: vec![CloseFailure {
                            part: ClosePart::Drain { in_flight: 0 },
                            cause: FailureCause::Panicked(join_message(join)),
                        }],
                    })
                })
            })
            .await
            .clone()
    }
}

async fn close(inner: Arc<AppInner>) -> Result<(), CloseError> {
    // One budget for the whole close, shared by its phases in order.
    let budget = Budget::of(inner.shutdown_timeout);
    // Said to every generation at once (they share the signal); then a reload in progress
    // is waited for, and none swaps in a generation after.
    inner.runtime().shutdown.send_replace(true);
    // A reload in progress is waited for as requests are, within the drain's share.
    let (wait, _) = budget.limit(inner.drain_timeout);
    let (_no_reload, retiring) = inner.stop_reloads(wait).await;
    let runtime = inner.runtime.load_full();
    runtime.in_flight.begin_closing();
    let in_flight = || {
        runtime.in_flight.count() + (retiring.iter().map(|r| r.in_flight.count())).sum::<usize>()
    };
    tracing::info!(
        in_flight = in_flight(),
        "closing: draining requests in flight"
    );

    let mut failures = Vec::new();
    let (wait, ran_out) = budget.limit(inner.drain_timeout);
    // Every generation's requests: those a reload left on the generation they began on too.
    let drained = futures_util::future::join_all(
        std::iter::once(&runtime)
            .chain(retiring.iter())
            .map(|r| r.in_flight.drained()),
    );
    if tokio::time::timeout(wait, drained).await.is_err() {
        let in_flight = in_flight();
        tracing::warn!(
            in_flight,
            "the drain timeout passed with requests still in flight"
        );
        failures.push(CloseFailure {
            part: ClosePart::Drain { in_flight },
            cause: ran_out,
        });
    }

    // Workers after the drain (a request may still hand them work) and before the modules'
    // hooks (a hook may tear down what a worker uses; a worker never needs a hook) and any
    // dispose.
    failures.extend(layer::workers::stop_workers(&runtime.container, budget).await);

    let hooks = std::mem::take(&mut *inner.shutdown.lock().unwrap_or_else(|p| p.into_inner()));
    for (module, hook) in hooks.into_iter().rev() {
        // The hook is called inside the future, so that a panic while making it is caught too.
        let shutdown = AssertUnwindSafe(async move { hook().await }).catch_unwind();
        let (wait, ran_out) = budget.limit(inner.dispose_timeout);
        let cause = match tokio::time::timeout(wait, shutdown).await {
            Ok(Ok(Ok(()))) => {
                tracing::info!(module = %module, "module shut down");
                continue;
            }
            Ok(Ok(Err(error))) => FailureCause::Error(Arc::new(error)),
            Ok(Err(panic)) => FailureCause::Panicked(panic_message(&*panic)),
            Err(_) => ran_out,
        };
        tracing::error!(module = %module, %cause, "module on_shutdown failed");
        failures.push(CloseFailure {
            part: ClosePart::Module {
                module: module.to_string(),
            },
            cause,
        });
    }

    // The generations a reload replaced first: what they alone hold (built anew after them,
    // or by a request of theirs) may need what the serving one holds, never the other way.
    for old in retiring.iter().rev() {
        if let Err(error) = layer::workers::close_within(&old.container, budget).await {
            failures.extend(error.failures);
        }
    }
    if let Err(error) = layer::workers::close_within(&runtime.container, budget).await {
        failures.extend(error.failures);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(CloseError { failures })
    }
}
