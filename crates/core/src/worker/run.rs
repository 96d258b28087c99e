//! The workers of a container at run time: started once their needs are built, each under a
//! supervisor that restarts it as its options say; stopped (signal, then a bounded wait) before
//! anything is disposed; their states for health.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

use futures_util::FutureExt;
use futures_util::future::join_all;
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{RegisteredWorker, Restart, Shutdown};
use crate::container::{Container, Inner};
use crate::error::{
    CloseFailure, ClosePart, FailureCause, ProvideError, join_message, panic_message,
};
use crate::ids::AppValue;
use crate::value::Needs;

/// The workers of a container.
pub(crate) struct Workers {
    pub(crate) nodes: Box<[WorkerNode]>,
    /// Requested when they are to stop; dropped with the container, which stops them too.
    shutdown: watch::Sender<bool>,
    /// The supervisors' tasks, once started; `None` before.
    tasks: Mutex<Option<Vec<JoinHandle<()>>>>,
    /// Set once stopping has begun: no worker starts after.
    stopping: AtomicBool,
    /// What stopping found; the first caller reports it.
    stopped: tokio::sync::OnceCell<Vec<CloseFailure>>,
    reported: AtomicBool,
    pub(crate) stop_timeout: Duration,
}

/// One worker, resolved against the graph.
pub(crate) struct WorkerNode {
    pub(crate) registered: RegisteredWorker,
    /// The module it was registered in (its position in the container's modules), if any.
    pub(crate) module: Option<u32>,
    /// Each need resolved (`None`: an optional need nothing provides).
    pub(crate) needs: Box<[Option<AppValue>]>,
    status: Mutex<Status>,
}

#[derive(Clone, Debug)]
struct Status {
    state: WorkerState,
    /// When the state began.
    since: Option<Instant>,
    restarts: u32,
    failures: u32,
    last_failure: Option<FailureCause>,
    /// The delay of the restart it is waiting for.
    next_restart: Option<Duration>,
}

/// Where a worker is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WorkerState {
    /// `start()` (or `serve`) has not started it yet.
    NotStarted,
    /// Its run is going.
    Running,
    /// Its last run failed; it runs again after its backoff delay.
    Restarting,
    /// Its last run failed and it is not restarted.
    Failed,
    /// Its run returned `Ok` before any shutdown: its work is done.
    Finished,
    /// Stopped by the shutdown signal.
    Stopped,
    /// It did not stop within the stop timeout after the signal: its task was aborted.
    Abandoned,
}

impl std::fmt::Display for WorkerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WorkerState::NotStarted => "not started",
            WorkerState::Running => "running",
            WorkerState::Restarting => "restarting",
            WorkerState::Failed => "failed",
            WorkerState::Finished => "finished",
            WorkerState::Stopped => "stopped",
            WorkerState::Abandoned => "abandoned",
        })
    }
}

/// One worker's health.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct WorkerHealth {
    /// Its name (`orders::relay` in a module).
    pub name: String,
    /// Where it is in its life.
    pub state: WorkerState,
    /// Whether the app is not ready while it is not running.
    pub critical: bool,
    /// How many times it was restarted.
    pub restarts: u32,
    /// How many of its runs failed.
    pub failures: u32,
    /// Its last failure, if a run failed.
    pub last_error: Option<String>,
    /// For a worker waiting to restart: the delay it waits, in milliseconds.
    pub restart_in_millis: Option<u64>,
    /// How long it has been in its state, in milliseconds (`None` before it started).
    pub for_millis: Option<u64>,
    /// The path of the module it was registered in, or `None` for the app's root.
    pub module: Option<String>,
    /// The keys it needs, as the graph resolved them.
    pub needs: Vec<String>,
    /// Whether a test's replacement (`override_worker`) runs in place of the worker
    /// registered under its name.
    pub overridden: bool,
}

impl WorkerNode {
    pub(crate) fn new(registered: RegisteredWorker, module: Option<u32>) -> Self {
        WorkerNode {
            registered,
            module,
            needs: Box::new([]),
            status: Mutex::new(Status {
                state: WorkerState::NotStarted,
                since: None,
                restarts: 0,
                failures: 0,
                last_failure: None,
                next_restart: None,
            }),
        }
    }

    /// Its name as errors, logs and health say it: qualified by its module's path.
    pub(crate) fn name(&self) -> String {
        self.registered.descriptor.qualified_name().into_owned()
    }

    fn status(&self) -> std::sync::MutexGuard<'_, Status> {
        self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set(&self, state: WorkerState) {
        let mut status = self.status();
        // Abandoned is final: a supervisor aborted at the stop timeout may still finish the
        // poll it was in.
        if status.state == WorkerState::Abandoned {
            return;
        }
        status.state = state;
        status.since = Some(Instant::now());
        if state != WorkerState::Restarting {
            status.next_restart = None;
        }
    }

    pub(crate) fn health(&self, module: Option<String>) -> WorkerHealth {
        let status = self.status().clone();
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        WorkerHealth {
            name: self.name(),
            state: status.state,
            critical: self.registered.options.critical,
            restarts: status.restarts,
            failures: status.failures,
            last_error: status.last_failure.as_ref().map(ToString::to_string),
            restart_in_millis: status.next_restart.map(millis),
            for_millis: status.since.map(|since| millis(since.elapsed())),
            module,
            needs: self
                .registered
                .descriptor
                .needs
                .iter()
                .map(|n| n.key.to_string())
                .collect(),
            overridden: self.registered.overridden,
        }
    }
}

impl Workers {
    pub(crate) fn new(nodes: Vec<WorkerNode>, stop_timeout: Duration) -> Self {
        Workers {
            nodes: nodes.into(),
            shutdown: watch::channel(false).0,
            tasks: Mutex::new(None),
            stopping: AtomicBool::new(false),
            stopped: tokio::sync::OnceCell::new(),
            reported: AtomicBool::new(false),
            stop_timeout,
        }
    }

    /// The providers the workers need, for `start()` to build with the rest.
    pub(crate) fn roots(&self) -> impl Iterator<Item = AppValue> + '_ {
        self.nodes
            .iter()
            .flat_map(|n| n.needs.iter().flatten().copied())
    }

    /// Signals every worker, waits for each up to the stop timeout (aborting one that does
    /// not stop), and returns what it ends in: the last failure of each worker whose last
    /// run failed (a failure it recovered from is not listed), each one abandoned. Waits for the stop however often it is called; only its first
    /// caller gets the failures (`App::close` reports them, then the container's close
    /// finds them reported).
    pub(crate) async fn stop(&self) -> Vec<CloseFailure> {
        let failures = self.stopped.get_or_init(|| self.stop_once()).await;
        match self.reported.swap(true, Ordering::AcqRel) {
            false => failures.clone(),
            true => Vec::new(),
        }
    }

    async fn stop_once(&self) -> Vec<CloseFailure> {
        self.stopping.store(true, Ordering::Release);
        let tasks = self
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_default();
        if tasks.is_empty() {
            return Vec::new();
        }
        tracing::info!(workers = tasks.len(), "stopping workers");
        self.shutdown.send_replace(true);
        let timeout = self.stop_timeout;
        let waits = tasks.into_iter().zip(self.nodes.iter()).map(|(task, node)| async move {
            let abort = task.abort_handle();
            match tokio::time::timeout(timeout, task).await {
                Ok(Ok(())) => None,
                // The supervisor itself panicked, outside the run it guards (a restart's
                // timer on a runtime without one, a value's `Drop`): the worker is failed.
                Ok(Err(join)) => {
                    let cause = FailureCause::Panicked(join_message(join));
                    tracing::error!(worker = %node.name(), %cause, "a worker's supervisor failed");
                    {
                        let mut status = node.status();
                        status.failures += 1;
                        status.last_failure = Some(cause);
                    }
                    node.set(WorkerState::Failed);
                    None
                }
                Err(_) => {
                    abort.abort();
                    node.set(WorkerState::Abandoned);
                    tracing::error!(worker = %node.name(), ?timeout, "a worker did not stop within the stop timeout: abandoned");
                    Some(CloseFailure {
                        part: ClosePart::Worker {
                            worker: node.name(),
                        },
                        cause: FailureCause::TimedOut(timeout),
                    })
                }
            }
        });
        let abandoned = join_all(waits).await;
        let mut failures = Vec::new();
        for (node, abandoned) in self.nodes.iter().zip(abandoned) {
            // Only a failure the worker ended in: its last run failed and it never ran again
            // (not restarted, or stopped while waiting to restart). A failure it recovered
            // from (a restarted run that then worked) is in its health and the logs, not here.
            let status = node.status();
            let ended_failed = status.state == WorkerState::Failed;
            if let Some(cause) = status.last_failure.clone().filter(|_| ended_failed) {
                failures.push(CloseFailure {
                    part: ClosePart::Worker {
                        worker: node.name(),
                    },
                    cause,
                });
            }
            failures.extend(abandoned);
        }
        failures
    }
}

impl Container {
    /// Starts the workers, once: builds what they need (if it is not built), then runs each
    /// under its supervisor. `App::start` and `App::serve` call it; a container without an
    /// app calls it itself. A second call does nothing. A failed build starts no worker and
    /// returns the error, having disposed what it built and closed the container (as
    /// `build_all` does).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use tokio::sync::Notify;
    /// use green_tea::Container;
    /// use green_tea::workers::WorkerFn;
    /// let started = Arc::new(Notify::new());
    /// let container = Container::builder()
    ///     .value("started", Arc::clone(&started))
    ///     .worker(WorkerFn::new("greeter", |needs, shutdown| async move {
    ///         needs.get::<Arc<Notify>>(0)?.notify_one();
    ///         shutdown.requested().await;
    ///         Ok(())
    ///     }).needs::<Arc<Notify>>("started"))
    ///     .build()
    ///     .unwrap();
    /// container.start_workers().await.unwrap();
    /// started.notified().await;
    /// container.close().await.unwrap(); // signals it, waits for it, then disposes
    /// # }
    /// ```
    pub async fn start_workers(&self) -> Result<(), ProvideError> {
        let workers = &self.inner.workers;
        if workers.nodes.is_empty() {
            return Ok(());
        }
        let roots: Vec<_> = workers.roots().map(|v| v.provider()).collect();
        self.inner.build_now(roots).await?;
        let mut tasks = workers.tasks.lock().unwrap_or_else(|p| p.into_inner());
        if tasks.is_some() {
            return Ok(());
        }
        if workers.stopping.load(Ordering::Acquire) || self.is_closed() {
            return Err(ProvideError::Closed);
        }
        let started = (0..workers.nodes.len())
            .map(|at| {
                let node = &workers.nodes[at];
                node.set(WorkerState::Running);
                tracing::info!(worker = %node.name(), "worker started");
                let receiver = workers.shutdown.subscribe();
                tokio::spawn(supervise(Arc::downgrade(&self.inner), at, receiver))
            })
            .collect();
        *tasks = Some(started);
        Ok(())
    }
}

/// Runs worker `at` of `inner` until it stops, restarting it as its options say. Holds the
/// container weakly: a worker never keeps its app alive, and one whose container is gone
/// (dropped without `close()`) is not restarted.
async fn supervise(weak: Weak<Inner>, at: usize, receiver: watch::Receiver<bool>) {
    let mut failures_in_a_row = 0_u32;
    loop {
        let (worker, needs, backoff) = {
            let Some(inner) = weak.upgrade() else { return };
            let node = &inner.workers.nodes[at];
            let needs = Needs::of_provider(&node.registered.descriptor.needs, &node.needs, &inner)
                .into_owned();
            let backoff = match &node.registered.options.restart {
                Restart::OnFailure(backoff) => Some(*backoff),
                _ => None,
            };
            (Arc::clone(&node.registered.worker), needs, backoff)
        };
        let shutdown = Shutdown::of(receiver.clone());
        let began = Instant::now();
        let run = AssertUnwindSafe(async { worker.run(needs, shutdown).await }).catch_unwind();
        let cause = match run.await {
            Ok(Ok(())) => None,
            Ok(Err(error)) => Some(FailureCause::Error(Arc::new(error))),
            Err(panic) => Some(FailureCause::Panicked(panic_message(&*panic))),
        };
        let Some(inner) = weak.upgrade() else { return };
        let node = &inner.workers.nodes[at];
        let requested = *receiver.borrow();
        let Some(cause) = cause else {
            let state = match requested {
                true => WorkerState::Stopped,
                false => WorkerState::Finished,
            };
            tracing::info!(worker = %node.name(), %state, "worker returned");
            node.set(state);
            return;
        };
        {
            let mut status = node.status();
            status.failures += 1;
            status.last_failure = Some(cause.clone());
        }
        let Some(backoff) = backoff.filter(|_| !requested) else {
            tracing::error!(worker = %node.name(), %cause, "worker failed; not restarted");
            node.set(WorkerState::Failed);
            return;
        };
        // A run that lasted as long as the longest delay was a working one: start over.
        if began.elapsed() >= backoff.max {
            failures_in_a_row = 0;
        }
        let delay = backoff.delay(failures_in_a_row);
        failures_in_a_row = failures_in_a_row.saturating_add(1);
        tracing::warn!(worker = %node.name(), %cause, ?delay, "worker failed; restarting after the delay");
        node.set(WorkerState::Restarting);
        node.status().next_restart = Some(delay);
        drop(inner);
        let shutdown = Shutdown::of(receiver.clone());
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = shutdown.requested() => {
                if let Some(inner) = weak.upgrade() {
                    inner.workers.nodes[at].set(WorkerState::Failed);
                }
                return;
            }
        }
        let Some(inner) = weak.upgrade() else { return };
        let node = &inner.workers.nodes[at];
        node.status().restarts += 1;
        node.set(WorkerState::Running);
        tracing::info!(worker = %node.name(), "worker restarted");
    }
}
