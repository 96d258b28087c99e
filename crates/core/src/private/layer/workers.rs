//! The container's workers as the app starts and stops them: what they need built first,
//! and stopping them after the drain.

pub use crate::budget::Budget;
use crate::container::Container;
use crate::ids::AppValue;

/// The providers the container's workers need, for `start()` to build with the routes'.
pub fn worker_roots(container: &Container) -> Vec<AppValue> {
    container.inner.workers.roots().collect()
}

/// Stops the container's workers (signal, then each waits up to the stop timeout, or what is
/// left of the shutdown's `budget`) and returns what went wrong in their lives; the first
/// caller gets the failures.
pub async fn stop_workers(container: &Container, budget: Budget) -> Vec<crate::CloseFailure> {
    container.inner.workers.stop(budget).await
}

/// Told when something the app's health reads may have changed (a build ended, a worker
/// changed state, or [`health_changed`] was called): what `App::ready` waits on.
pub fn health_changes(container: &Container) -> tokio::sync::watch::Receiver<()> {
    container.inner.changes.subscribe()
}

/// Tells [`health_changes`]' receivers that the app's health may have changed (it started,
/// or began to close).
pub fn health_changed(container: &Container) {
    container.inner.changes.send_replace(());
}

/// Closes the container within what is left of the shutdown's `budget`.
pub async fn close_within(container: &Container, budget: Budget) -> Result<(), crate::CloseError> {
    container.close_within(budget).await
}
