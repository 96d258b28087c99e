//! Starting a container's workers once their needs are built, each under a supervisor that
//! restarts it as its options say (what a worker is, and the state the container keeps of
//! each, are in `worker/`).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use futures_util::FutureExt;
use tokio::sync::watch;
use tokio::time::Instant;

use super::lineage::Lineage;
use super::{Container, Inner};
use crate::error::{FailureCause, ProvideError, panic_message};
use crate::value::Needs;
use crate::worker::{Restart, Shutdown, WorkerState};

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
    pub fn start_workers(&self) -> impl Future<Output = Result<(), ProvideError>> + Send + '_ {
        // Boxed here, as `close()` is: the supervisors are compiled once, in green-tea.
        self.start_workers_now().boxed()
    }

    async fn start_workers_now(&self) -> Result<(), ProvideError> {
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
        let _none_moved = self.inner.follow(&[]);
        let started = (0..workers.nodes.len())
            .map(|at| {
                self.inner.set_worker_state(at, WorkerState::Running);
                tracing::info!(worker = %workers.nodes[at].name(), "worker started");
                let receiver = workers.shutdown.subscribe();
                tokio::spawn(supervise(Arc::downgrade(&self.inner.lineage), at, receiver))
            })
            .collect();
        *tasks = Some(started);
        Ok(())
    }
}

impl Inner {
    /// Sets worker `at`'s state and says so to those waiting on the app's health
    /// (`App::ready`): every change of a running worker's state goes through here.
    fn set_worker_state(&self, at: usize, state: WorkerState) {
        self.workers.nodes[at].set(state);
        self.changes.send_replace(());
    }
}

impl Inner {
    /// Whether this is the generation that serves: its close stops the workers.
    pub(crate) fn serves(&self) -> bool {
        self.lineage.number() == self.generation
    }

    /// Makes this the generation the workers run on, and stops the run of each worker in
    /// `restart` (its supervisor starts it again, on this one). Returns what resolves once
    /// each of those runs in progress has ended (so that what they held may be disposed).
    pub(crate) fn follow(
        self: &Arc<Self>,
        restart: &[usize],
    ) -> impl Future<Output = ()> + Send + use<> {
        self.lineage.set(self.generation, self);
        let mut ending = Vec::new();
        for &at in restart {
            let node = &self.workers.nodes[at];
            let (running, ended) = *node.runs.borrow();
            if running {
                ending.push((node.runs.subscribe(), ended));
            }
            node.cycle.send_modify(|n| *n += 1);
        }
        // A run that does not end when asked holds what it has; after the workers' stop
        // timeout the replaced generation goes on without it (as a close abandons it).
        let limit = self.workers.stop_timeout;
        async move {
            let ended = async {
                for (mut runs, ended) in ending {
                    let _ = runs.wait_for(|&(_, now)| now > ended).await;
                }
            };
            if tokio::time::timeout(limit, ended).await.is_err() {
                tracing::warn!(
                    ?limit,
                    "a worker restarted by a reload did not end its run within the stop \
                     timeout: the replaced generation is closed without waiting for it"
                );
            }
        }
    }
}

/// Runs worker `at` of the generation that serves until it stops, restarting it as its
/// options say, and on a reload that built anew what it needs. Holds the container weakly: a
/// worker never keeps its app alive, and one whose container is gone (dropped without
/// `close()`) is not restarted.
async fn supervise(lineage: Weak<Lineage<Inner>>, at: usize, receiver: watch::Receiver<bool>) {
    let serving = || lineage.upgrade().and_then(|l| l.serving());
    let mut failures_in_a_row = 0_u32;
    let (mut cycle, runs) = match serving() {
        Some(inner) => {
            let node = &inner.workers.nodes[at];
            (node.cycle.subscribe(), node.runs.clone())
        }
        None => return,
    };
    loop {
        // Marked running, and the reloads so far seen, before the generation is read: a
        // commit from here on either finds the run in progress (and waits for it) or is seen
        // by it (and moves it); none slips between the two.
        runs.send_modify(|r| r.0 = true);
        cycle.borrow_and_update();
        let ended = || runs.send_modify(|r| *r = (false, r.1 + 1));
        let (worker, needs, backoff) = {
            let Some(inner) = serving() else {
                ended();
                return;
            };
            let node = &inner.workers.nodes[at];
            let needs =
                Needs::of_provider(&node.registered.descriptor.needs, &node.needs, &inner.slots)
                    .into_owned();
            let backoff = match &node.registered.options.restart {
                Restart::OnFailure(backoff) => Some(*backoff),
                _ => None,
            };
            (Arc::clone(&node.registered.worker), needs, backoff)
        };
        // The run's own signal: the app's shutdown, or a reload that moves it.
        let (stop, signal) = watch::channel(false);
        let began = Instant::now();
        let run = AssertUnwindSafe(async { worker.run(needs, Shutdown::of(signal)).await })
            .catch_unwind();
        let mut run = std::pin::pin!(run);
        let mut app_stop = receiver.clone();
        let mut moved = false;
        let outcome = loop {
            tokio::select! {
                outcome = &mut run => break outcome,
                _ = app_stop.wait_for(|stop| *stop), if !*stop.borrow() => {
                    stop.send_replace(true);
                }
                changed = cycle.changed(), if !*stop.borrow() => {
                    if changed.is_ok() {
                        moved = true;
                        stop.send_replace(true);
                    }
                }
            }
        };
        ended();
        let cause = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(error)) => Some(FailureCause::Error(Arc::new(error))),
            Err(panic) => Some(FailureCause::Panicked(panic_message(&*panic))),
        };
        let Some(inner) = serving() else { return };
        let node = &inner.workers.nodes[at];
        let requested = *receiver.borrow();
        // Stopped for a reload, and not for the app's shutdown: it runs again on the
        // generation that serves now, with what that one built, however the stopped run ended
        // (an error on the way out of a run it was asked to end is not a failure of it).
        if moved && !requested {
            match &cause {
                None => {
                    tracing::info!(worker = %node.name(), generation = inner.generation, "worker restarted on the reloaded generation")
                }
                Some(cause) => {
                    tracing::warn!(worker = %node.name(), generation = inner.generation, %cause, "worker stopped for a reload with an error; restarted on the reloaded generation")
                }
            }
            inner.set_worker_state(at, WorkerState::Running);
            continue;
        }
        let Some(cause) = cause else {
            let state = match requested {
                true => WorkerState::Stopped,
                false => WorkerState::Finished,
            };
            tracing::info!(worker = %node.name(), %state, "worker returned");
            inner.set_worker_state(at, state);
            return;
        };
        {
            let mut status = node.status();
            status.failures += 1;
            status.last_failure = Some(cause.clone());
        }
        let Some(backoff) = backoff.filter(|_| !requested) else {
            tracing::error!(worker = %node.name(), %cause, "worker failed; not restarted");
            inner.set_worker_state(at, WorkerState::Failed);
            return;
        };
        // A run that lasted as long as the longest delay was a working one: start over.
        if began.elapsed() >= backoff.max {
            failures_in_a_row = 0;
        }
        let delay = backoff.delay(failures_in_a_row);
        failures_in_a_row = failures_in_a_row.saturating_add(1);
        tracing::warn!(worker = %node.name(), %cause, ?delay, "worker failed; restarting after the delay");
        node.status().next_restart = Some(delay);
        inner.set_worker_state(at, WorkerState::Restarting);
        drop(inner);
        let shutdown = Shutdown::of(receiver.clone());
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = shutdown.requested() => {
                if let Some(inner) = serving() {
                    inner.set_worker_state(at, WorkerState::Failed);
                }
                return;
            }
        }
        let Some(inner) = serving() else { return };
        let node = &inner.workers.nodes[at];
        node.status().restarts += 1;
        inner.set_worker_state(at, WorkerState::Running);
        tracing::info!(worker = %node.name(), "worker restarted");
    }
}
