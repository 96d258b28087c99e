//! The workers of a container at run time, as the container holds them: each one's state (for
//! health) and what its supervisor records; stopping them all (signal, then a bounded wait)
//! before anything is disposed. Starting them and their supervisors are the container's
//! (`container/workers.rs`), which this file does not need.

use crate::budget::Budget;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use futures_util::future::join_all;
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::RegisteredWorker;
use crate::error::{CloseFailure, ClosePart, FailureCause, join_message};
use crate::ids::AppValue;

/// The workers of a container.
pub(crate) struct Workers {
    pub(crate) nodes: Box<[WorkerNode]>,
    /// Requested when they are to stop; dropped with the container, which stops them too.
    pub(crate) shutdown: watch::Sender<bool>,
    /// The supervisors' tasks, once started; `None` before.
    pub(crate) tasks: Mutex<Option<Vec<JoinHandle<()>>>>,
    /// Set once stopping has begun: no worker starts after.
    pub(crate) stopping: AtomicBool,
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
    /// Counts the reloads that built anew a provider it needs: its supervisor stops the run
    /// on each and starts it again on the new generation.
    pub(crate) cycle: watch::Sender<u64>,
    /// Whether a run is in progress, and how many runs have ended: a reload waits for the
    /// run that holds the generation it replaced to end before that generation is disposed.
    pub(crate) runs: watch::Sender<(bool, u64)>,
}

#[derive(Clone, Debug)]
pub(crate) struct Status {
    pub(crate) state: WorkerState,
    /// When the state began.
    pub(crate) since: Option<Instant>,
    pub(crate) restarts: u32,
    pub(crate) failures: u32,
    pub(crate) last_failure: Option<FailureCause>,
    /// The delay of the restart it is waiting for.
    pub(crate) next_restart: Option<Duration>,
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
            cycle: watch::Sender::new(0),
            runs: watch::Sender::new((false, 0)),
        }
    }

    /// Its name as errors, logs and health say it: qualified by its module's path.
    pub(crate) fn name(&self) -> String {
        self.registered.descriptor.qualified_name().into_owned()
    }

    pub(crate) fn status(&self) -> std::sync::MutexGuard<'_, Status> {
        self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn set(&self, state: WorkerState) {
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
    pub(crate) async fn stop(&self, budget: Budget) -> Vec<CloseFailure> {
        let failures = self.stopped.get_or_init(|| self.stop_once(budget)).await;
        match self.reported.swap(true, Ordering::AcqRel) {
            false => failures.clone(),
            true => Vec::new(),
        }
    }

    async fn stop_once(&self, budget: Budget) -> Vec<CloseFailure> {
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
        let (timeout, ran_out) = budget.limit(self.stop_timeout);
        let waits = tasks.into_iter().zip(self.nodes.iter()).map(|(task, node)| {
            let ran_out = ran_out.clone();
            async move {
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
                        cause: ran_out,
                    })
                }
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
