//! `#[worker]` through an `App`: a discovered worker runs and stops on `close()`; one with
//! `restart = "on_failure"` runs again after failing (on tokio's paused clock); `critical` is
//! in health and readiness; a module's `discover_in` makes its workers the module's; an absent
//! optional need arrives as `None`; `discover = false` is left out; the fn stays a fn. Each
//! test discovers only its own Rust module, so the others' workers stay out of its app.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use green_tea::prelude::*;
use green_tea::workers::{Shutdown, WorkerState};

/// Waits (up to 10 s of tokio's clock) for `condition`, failing the test if it never holds.
async fn until(what: &str, mut condition: impl AsyncFnMut() -> bool) {
    let wait = async {
        while !condition().await {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .unwrap_or_else(|_| panic!("{what} never happened"));
}

async fn state_of(app: &App, worker: usize) -> WorkerState {
    app.health().await.workers[worker].state
}

/// A worker found by `discover()`, its `Shutdown` after its need.
mod sweeping {
    use super::*;

    pub(crate) const PATH: &str = module_path!();

    #[worker(needs = "sweeps")]
    async fn sweeper(sweeps: &Arc<AtomicU64>, shutdown: Shutdown) -> Result<(), BoxError> {
        sweeps.fetch_add(1, Ordering::SeqCst);
        shutdown.requested().await;
        // One more, to say the signal arrived.
        sweeps.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

#[tokio::test]
async fn a_discovered_worker_runs_with_its_needs_and_stops_on_close() {
    let sweeps = Arc::new(AtomicU64::new(0));
    let app = App::builder()
        .value("sweeps", Arc::clone(&sweeps))
        .discover_in(&[sweeping::PATH])
        .build()
        .unwrap();
    let health = app.health().await;
    assert_eq!(health.workers.len(), 1);
    let sweeper = &health.workers[0];
    assert_eq!(sweeper.name, "sweeper");
    assert_eq!(sweeper.needs, ["sweeps"]);
    assert_eq!(sweeper.state, WorkerState::NotStarted);
    assert!(!sweeper.critical);

    app.start().await.unwrap();
    until("the first sweep", async || {
        sweeps.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(state_of(&app, 0).await, WorkerState::Running);
    app.close().await.unwrap();
    assert_eq!(sweeps.load(Ordering::SeqCst), 2, "it saw its shutdown");
}

/// Fails its first two runs, then runs until its shutdown; its error is a `String`.
mod flaky {
    use super::*;

    pub(crate) const PATH: &str = module_path!();

    #[worker(needs = "runs", restart = "on_failure")]
    async fn importer(shutdown: Shutdown, runs: &AtomicU32) -> Result<(), String> {
        if runs.fetch_add(1, Ordering::SeqCst) < 2 {
            return Err("the feed is gone".to_owned());
        }
        shutdown.requested().await;
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn a_worker_restarted_on_failure_runs_again_after_its_backoff() {
    let app = App::builder()
        .value("runs", AtomicU32::new(0))
        .discover_in(&[flaky::PATH])
        .build()
        .unwrap();
    app.start().await.unwrap();
    let runs = app.container().get::<AtomicU32>("runs").await.unwrap();
    // The default backoff: 100 ms after the first failure, then 200 ms.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let health = app.health().await;
    assert_eq!(health.workers[0].state, WorkerState::Restarting);
    assert_eq!(health.workers[0].restart_in_millis, Some(100));
    assert_eq!(
        health.workers[0].last_error.as_deref(),
        Some("the feed is gone")
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    let health = app.health().await;
    let importer = &health.workers[0];
    assert_eq!(importer.state, WorkerState::Running);
    assert_eq!((importer.restarts, importer.failures), (2, 2));
    // It recovered: its failures are in health (above) and the logs, and close() is clean
    // (issue 41, point 26: an orchestrator reads a failed close as a failed stop).
    app.close().await.unwrap();
}

/// A critical worker that runs, one that fails, and one that is not critical.
mod consumers {
    use super::*;

    pub(crate) const PATH: &str = module_path!();

    #[worker(critical)]
    async fn orders(shutdown: Shutdown) -> Result<(), BoxError> {
        shutdown.requested().await;
        Ok(())
    }

    #[worker(critical, restart = "never")]
    async fn payments() -> Result<(), BoxError> {
        Err("no queue".into())
    }

    #[worker]
    async fn reports(shutdown: Shutdown) -> Result<(), BoxError> {
        shutdown.requested().await;
        Ok(())
    }
}

#[tokio::test]
async fn critical_is_in_health_and_a_failed_critical_worker_makes_the_app_not_ready() {
    let app = App::builder()
        .discover_in(&[consumers::PATH])
        .build()
        .unwrap();
    app.start().await.unwrap();
    // Discovered in the order of their names.
    until("payments failed", async || {
        state_of(&app, 1).await == WorkerState::Failed
    })
    .await;
    let health = app.health().await;
    let found: Vec<(&str, bool)> = health
        .workers
        .iter()
        .map(|w| (w.name.as_str(), w.critical))
        .collect();
    assert_eq!(
        found,
        [("orders", true), ("payments", true), ("reports", false)]
    );
    assert_eq!(health.workers[0].state, WorkerState::Running);
    assert!(!health.ready);
    assert!(
        health
            .reasons
            .iter()
            .any(|r| r == "critical worker `payments` failed: no queue"),
        "{:?}",
        health.reasons
    );
    assert!(app.close().await.is_err(), "payments failed");
}

/// A library's workers, which its module finds itself.
mod relaying {
    use super::*;

    pub(crate) const PATH: &str = module_path!();

    #[worker(needs = ["outbox", "relayed"])]
    async fn relay(
        outbox: &String,
        relayed: &AtomicU32,
        shutdown: Shutdown,
    ) -> Result<(), BoxError> {
        assert_eq!(outbox, "the orders' outbox");
        relayed.fetch_add(1, Ordering::SeqCst);
        shutdown.requested().await;
        Ok(())
    }

    /// The module, as a library ships it: its private keys are the worker's to use.
    pub(crate) fn module() -> Module {
        Module::new("orders")
            .value("outbox", String::from("the orders' outbox"))
            .value("relayed", AtomicU32::new(0))
            .export("relayed")
            .discover_in(&[PATH])
    }
}

#[tokio::test]
async fn a_module_discovers_its_own_workers_and_the_app_leaves_them_out() {
    let app = App::builder()
        .module(relaying::module())
        .discover_in(&[relaying::PATH])
        .build()
        .unwrap();
    let health = app.health().await;
    assert_eq!(health.workers.len(), 1, "the module's, once");
    assert_eq!(health.workers[0].name, "orders::relay");
    assert_eq!(health.workers[0].module.as_deref(), Some("orders"));
    app.start().await.unwrap();
    let relayed = app
        .container()
        .get::<AtomicU32>("orders::relayed")
        .await
        .unwrap();
    until("the relay ran", async || {
        relayed.load(Ordering::SeqCst) == 1
    })
    .await;
    app.close().await.unwrap();
}

/// A worker with an optional need and a list, and one left to register by hand.
mod reporting {
    use std::sync::Mutex;

    use super::*;

    pub(crate) const PATH: &str = module_path!();

    /// What the reporter saw: its label, and how many sinks.
    pub(crate) type Seen = Mutex<Option<(Option<String>, usize)>>;

    #[worker(needs = ["label?", "seen", "sinks[]"])]
    pub(crate) async fn reporter(
        label: Option<&String>,
        seen: &Seen,
        sinks: All<'_, String>,
    ) -> Result<(), BoxError> {
        *seen.lock().unwrap() = Some((label.cloned(), sinks.len()));
        Ok(()) // its work is done
    }

    #[worker(discover = false)]
    pub(crate) async fn by_hand(shutdown: Shutdown) -> Result<(), BoxError> {
        shutdown.requested().await;
        Ok(())
    }
}

#[tokio::test]
async fn an_absent_optional_need_is_none_and_a_present_one_is_some() {
    for label in [None, Some("weekly")] {
        let builder = App::builder()
            .value("seen", reporting::Seen::default())
            .value("sinks[]", String::from("email"))
            .discover_in(&[reporting::PATH]);
        let builder = match label {
            Some(label) => builder.value("label", label.to_owned()),
            None => builder,
        };
        let app = builder.build().unwrap();
        app.start().await.unwrap();
        until("the report", async || {
            state_of(&app, 0).await == WorkerState::Finished
        })
        .await;
        let seen = app
            .container()
            .get::<reporting::Seen>("seen")
            .await
            .unwrap();
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen, Some((label.map(str::to_owned), 1)));
        app.close().await.unwrap();
    }
}

#[tokio::test]
async fn discover_false_is_left_out_and_registered_by_hand() {
    let app = App::builder()
        .value("seen", reporting::Seen::default())
        .discover_in(&[reporting::PATH])
        .worker(reporting::by_hand::worker())
        .build()
        .unwrap();
    let health = app.health().await;
    let names: Vec<&str> = health.workers.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["reporter", "by_hand"]);
    app.start().await.unwrap();
    app.close().await.unwrap();
}

#[tokio::test]
async fn the_fn_stays_a_fn_to_drive_by_hand() {
    let (trigger, shutdown) = Shutdown::new_pair();
    let run = tokio::spawn(reporting::by_hand(shutdown));
    trigger.request();
    run.await.unwrap().unwrap();
}
