//! Workers: long-running tasks that are nodes of the graph. A worker needs providers (checked
//! at `build()` like any other need), is started once they are built, receives a shutdown
//! signal when the app closes, and is stopped before anything it needs is disposed.

mod state;

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::descriptor::Descriptor;
use crate::error::BoxError;
use crate::key::Key;
use crate::value::Needs;

pub use state::{WorkerHealth, WorkerState};
pub(crate) use state::{WorkerNode, Workers};

/// What a worker's run returns: `Ok` when it has stopped (after its shutdown signal, or its
/// work being done), an error when it failed.
pub type WorkerFuture = Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send + 'static>>;

/// A long-running task of the app: an outbox relay, a queue consumer, a cache refresher.
/// It needs providers like any declaration (`build()` checks them), is started by
/// `start()` or `serve` once they are built, and stops when its [`Shutdown`] says so; see
/// the workers guide for the whole life.
///
/// [`WorkerFn`] makes one of a closure; `#[worker]` of an `async fn`.
pub trait Worker: Send + Sync + 'static {
    /// Its name and what it needs (it provides nothing).
    fn descriptor(&self) -> Descriptor;

    /// How it is restarted and whether the app's readiness depends on it.
    fn options(&self) -> WorkerOptions {
        WorkerOptions::default()
    }

    /// One run: until `shutdown` is requested (then return `Ok` promptly) or the work fails.
    /// Called again for each restart, with the same needs.
    fn run(&self, needs: Needs<'static>, shutdown: Shutdown) -> WorkerFuture;
}

/// How a worker is restarted, and whether it is critical.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkerOptions {
    /// What happens when a run fails (returns an error or panics).
    pub restart: Restart,
    /// Whether the app is not ready while the worker is not running (failed, or waiting to
    /// restart).
    pub critical: bool,
}

impl WorkerOptions {
    /// With `restart`.
    pub fn restart(mut self, restart: Restart) -> Self {
        self.restart = restart;
        self
    }

    /// Critical: the app is not ready while this worker is not running.
    pub fn critical(mut self) -> Self {
        self.critical = true;
        self
    }
}

/// What happens when a worker's run fails.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Restart {
    /// It stays failed (the default): logged, shown in health, listed in `close()`'s error.
    #[default]
    Never,
    /// It runs again after a delay that grows after each failure in a row.
    OnFailure(Backoff),
}

impl Restart {
    /// Restart on failure with the default [`Backoff`].
    pub fn on_failure() -> Self {
        Restart::OnFailure(Backoff::default())
    }
}

/// The delays between a failing worker's restarts: `initial` after the first failure, doubled
/// after each failure in a row up to `max`; a run that lasted at least `max` before it failed
/// starts the count again. No jitter: workers of one process fail for their own reasons.
///
/// ```
/// use std::time::Duration;
/// use green_tea::workers::Backoff;
/// let backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(1));
/// let delays: Vec<_> = (0..6).map(|n| backoff.delay(n)).collect();
/// assert_eq!(delays.iter().map(|d| d.as_millis()).collect::<Vec<_>>(), [100, 200, 400, 800, 1000, 1000]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// The delay after the first failure.
    pub initial: Duration,
    /// The longest delay.
    pub max: Duration,
}

impl Default for Backoff {
    /// 100 ms, doubling up to 30 s.
    fn default() -> Self {
        Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_secs(30),
        }
    }
}

impl Backoff {
    /// `initial`, doubling up to `max` (at least `initial`).
    pub fn new(initial: Duration, max: Duration) -> Self {
        Backoff {
            initial,
            max: max.max(initial),
        }
    }

    /// The delay before the restart after `failures` earlier failures in a row (0: the first).
    pub fn delay(&self, failures: u32) -> Duration {
        let factor = 2_u32.saturating_pow(failures.min(31));
        self.initial.saturating_mul(factor).min(self.max)
    }
}

/// A worker's shutdown signal: requested when `close()` stops the workers (after the drain),
/// or when the container is dropped without `close()`. Cheap to clone; every clone sees the
/// same signal.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use green_tea::workers::Shutdown;
/// let (shutdown, signal) = Shutdown::new_pair();
/// assert!(!signal.is_requested());
/// shutdown.request();
/// signal.requested().await; // returns at once, now
/// assert!(signal.is_requested());
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Shutdown(tokio::sync::watch::Receiver<bool>);

/// The sending side of a [`Shutdown`], for tests of a worker's run.
#[derive(Debug)]
pub struct ShutdownTrigger(tokio::sync::watch::Sender<bool>);

impl ShutdownTrigger {
    /// Requests the shutdown: every [`Shutdown`] of this pair sees it.
    pub fn request(&self) {
        self.0.send_replace(true);
    }
}

impl Shutdown {
    /// A signal and its trigger, for running a worker by hand in a test.
    pub fn new_pair() -> (ShutdownTrigger, Shutdown) {
        let (sender, receiver) = tokio::sync::watch::channel(false);
        (ShutdownTrigger(sender), Shutdown(receiver))
    }

    pub(crate) fn of(receiver: tokio::sync::watch::Receiver<bool>) -> Self {
        Shutdown(receiver)
    }

    /// Whether the shutdown has been requested (or the app is gone: its container dropped).
    pub fn is_requested(&self) -> bool {
        *self.0.borrow() || self.0.has_changed().is_err()
    }

    /// Resolves once the shutdown is requested (at once if it already is). Its future holds
    /// no borrow of the signal: `select!` it against the worker's own wait.
    pub fn requested(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut receiver = self.0.clone();
        async move {
            // An error means the app is gone: as good as a request.
            let _ = receiver.wait_for(|requested| *requested).await;
        }
    }
}

/// A worker made of a closure of its needs and its shutdown signal.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use green_tea::workers::{Restart, WorkerFn};
///
/// let ticker = WorkerFn::new("ticker", |needs, shutdown| async move {
///     let ticks = needs.get::<AtomicU64>(0)?;
///     while !shutdown.is_requested() {
///         ticks.fetch_add(1, Ordering::Relaxed);
///         tokio::select! {
///             _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
///             _ = shutdown.requested() => {}
///         }
///     }
///     Ok(())
/// })
/// .needs::<AtomicU64>("ticks")
/// .restart(Restart::on_failure());
/// # let _ = ticker;
/// ```
pub struct WorkerFn<F> {
    descriptor: Descriptor,
    options: WorkerOptions,
    run: F,
}

impl<F> std::fmt::Debug for WorkerFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerFn")
            .field("descriptor", &self.descriptor)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl<F, Fut> WorkerFn<F>
where
    F: Fn(Needs<'static>, Shutdown) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), BoxError>> + Send + 'static,
{
    /// A worker named `name`, needing nothing yet.
    #[track_caller]
    pub fn new(name: impl Into<Cow<'static, str>>, run: F) -> Self {
        WorkerFn {
            descriptor: Descriptor::new(name),
            options: WorkerOptions::default(),
            run,
        }
    }

    /// Declares a needed key of type `T`.
    pub fn needs<T: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.descriptor = self.descriptor.needs::<T>(key);
        self
    }

    /// How it restarts after a failure (default: never).
    pub fn restart(mut self, restart: Restart) -> Self {
        self.options.restart = restart;
        self
    }

    /// The app is not ready while this worker is not running.
    pub fn critical(mut self) -> Self {
        self.options.critical = true;
        self
    }

    /// Puts it under the condition `condition` (`cacheOn`, `gateway = stripe`): started only
    /// where it holds; see [`Switch`](crate::switches::Switch).
    pub fn when(mut self, condition: impl Into<Cow<'static, str>>) -> Self {
        self.descriptor = self.descriptor.when(condition);
        self
    }
}

impl<F, Fut> Worker for WorkerFn<F>
where
    F: Fn(Needs<'static>, Shutdown) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), BoxError>> + Send + 'static,
{
    fn descriptor(&self) -> Descriptor {
        self.descriptor.clone()
    }

    fn options(&self) -> WorkerOptions {
        self.options.clone()
    }

    fn run(&self, needs: Needs<'static>, shutdown: Shutdown) -> WorkerFuture {
        Box::pin((self.run)(needs, shutdown))
    }
}

/// A worker as registered: made once, its descriptor and options read once.
pub(crate) struct RegisteredWorker {
    pub(crate) worker: Arc<dyn Worker>,
    pub(crate) descriptor: Descriptor,
    pub(crate) options: WorkerOptions,
    /// Whether a test's `override_worker` put it in place of the worker registered under its
    /// name (`explain` says so).
    pub(crate) overridden: bool,
}

impl RegisteredWorker {
    pub(crate) fn new(worker: impl Worker) -> Self {
        RegisteredWorker {
            descriptor: worker.descriptor(),
            options: worker.options(),
            worker: Arc::new(worker),
            overridden: false,
        }
    }
}
