//! Workers: checked with the graph at `build()`; started by `start()` (or `serve`) once what
//! they need is built; restarted as their policy says; stopped by `close()` after the drain and
//! before the modules' hooks and any dispose, an unresponsive one abandoned at the stop
//! timeout; every failure in health and in `CloseError`.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use green_tea::Container;
use green_tea::error::{ClosePart, FailureCause, Problem};
use green_tea::extract::RequestContext;
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::steps::StepFn;
use green_tea::test::TestClient;
use green_tea::workers::{Backoff, Restart, Worker, WorkerFn, WorkerState};
use support::http::{Gate, Server, until, within};
use support::{Log, OnDispose, OnProvide, Probe, Service};

/// A worker needing the services `needs`, which logs `start <name>` when a run begins and
/// `stop <name>` when its shutdown arrives, checking that what it needs is not disposed yet.
fn logging_worker(name: &'static str, needs: &[&'static str], log: &Log) -> impl Worker {
    let log = log.clone();
    let worker = WorkerFn::new(name, move |needs, shutdown| {
        let log = log.clone();
        async move {
            let services = (0..needs.len())
                .map(|i| needs.get::<Service>(i))
                .collect::<Result<Vec<_>, _>>()?;
            log.push(format!("start {name}"));
            shutdown.requested().await;
            for service in &services {
                assert!(
                    !service.is_disposed(),
                    "{name} saw {} disposed",
                    service.name
                );
            }
            log.push(format!("stop {name}"));
            Ok(())
        }
    });
    needs
        .iter()
        .fold(worker, |worker, need| worker.needs::<Service>(*need))
}

fn parse() -> Result<(), BoxError> {
    panic!("the parser broke")
}

fn state(app: &App, worker: usize) -> WorkerState {
    app.container().health().workers[worker].state
}

#[tokio::test]
async fn a_worker_starts_once_its_needs_are_built_and_stops_before_they_are_disposed() {
    let log = Log::default();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .provider(Probe::new("broker", &["db"], &log))
        .worker(logging_worker("relay", &["broker"], &log))
        .build()
        .unwrap();
    assert_eq!(state(&app, 0), WorkerState::NotStarted);
    within("start", app.start()).await.unwrap();
    until("the relay to start", || {
        log.events().contains(&"start relay".into())
    })
    .await;
    assert_eq!(state(&app, 0), WorkerState::Running);
    // Started after what it needs was built.
    let events = log.events();
    let started = events.iter().position(|e| e == "start relay").unwrap();
    assert!(
        events[..started].contains(&"provide broker".into()),
        "{events:?}"
    );
    within("close", app.close()).await.unwrap();
    let events = log.events();
    let stopped = events.iter().position(|e| e == "stop relay").unwrap();
    let disposed = events.iter().position(|e| e == "dispose broker").unwrap();
    assert!(stopped < disposed, "{events:?}");
    assert_eq!(state(&app, 0), WorkerState::Stopped);
}

#[tokio::test]
async fn close_drains_then_stops_workers_then_runs_hooks_then_disposes() {
    let log = Log::default();
    let gate = Gate::new();
    let held = gate.clone();
    let hook_log = log.clone();
    let handler_log = log.clone();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .worker(logging_worker("relay", &["db"], &log))
        .module(Module::new("mailer").on_shutdown(move || async move {
            hook_log.push("hook mailer");
            Ok(())
        }))
        .route(
            Route::post("/slow", move |_: RequestContext| {
                let held = held.clone();
                let log = handler_log.clone();
                async move {
                    log.push("request started");
                    held.pass().await;
                    log.push("request done");
                    "done"
                }
            })
            .needs::<Service>("db"),
        )
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("the relay to start", || {
        log.events().contains(&"start relay".into())
    })
    .await;
    let client = TestClient::new(app.clone());
    let request = tokio::spawn(async move { client.post("/slow").send().await.text() });
    until("the request to be in flight", || {
        log.events().contains(&"request started".into())
    })
    .await;
    let closing = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    // The drain holds everything back: the worker runs on.
    tokio::task::yield_now().await;
    assert!(!log.events().contains(&"stop relay".into()));
    gate.open();
    assert_eq!(within("the request", request).await.unwrap(), "done");
    within("close", closing).await.unwrap().unwrap();
    let events = log.events();
    let order: Vec<&str> = events
        .iter()
        .map(String::as_str)
        .filter(|e| ["request done", "stop relay", "hook mailer", "dispose db"].contains(e))
        .collect();
    assert_eq!(
        order,
        ["request done", "stop relay", "hook mailer", "dispose db"]
    );
}

#[tokio::test]
async fn a_worker_that_fails_is_failed_in_health_and_listed_by_close() {
    let app = App::builder()
        .worker(WorkerFn::new("importer", |_, _| async {
            Err::<(), BoxError>("the feed is gone".into())
        }))
        .worker(WorkerFn::new("panicker", |_, _| async { parse() }))
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("both to fail", || {
        (0..2).all(|w| state(&app, w) == WorkerState::Failed)
    })
    .await;
    let health = app.container().health();
    assert_eq!(
        health.workers[0].last_error.as_deref(),
        Some("the feed is gone")
    );
    assert_eq!(
        health.workers[1].last_error.as_deref(),
        Some("panicked: the parser broke")
    );
    assert_eq!(
        (health.workers[0].failures, health.workers[0].restarts),
        (1, 0)
    );
    // The app goes on serving.
    assert!(!app.is_closed());
    let error = app.close().await.unwrap_err();
    let parts: Vec<_> = error.failures.iter().map(|f| f.part.clone()).collect();
    assert_eq!(
        parts,
        [
            ClosePart::Worker {
                worker: "importer".into()
            },
            ClosePart::Worker {
                worker: "panicker".into()
            },
        ]
    );
    assert!(matches!(error.failures[1].cause, FailureCause::Panicked(_)));
    // A second close reports the same, once.
    assert_eq!(app.close().await.unwrap_err().failures.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_worker_that_ignores_its_signal_is_abandoned_at_the_stop_timeout_and_disposes_still_run()
{
    let log = Log::default();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .worker(
            WorkerFn::new("stubborn", |_, _| async {
                std::future::pending::<()>().await;
                Ok(())
            })
            .needs::<Service>("db"),
        )
        .worker_stop_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    app.start().await.unwrap();
    let error = app.close().await.unwrap_err();
    assert_eq!(error.failures.len(), 1, "{error}");
    assert_eq!(
        error.failures[0].part,
        ClosePart::Worker {
            worker: "stubborn".into()
        }
    );
    assert!(
        matches!(error.failures[0].cause, FailureCause::TimedOut(t) if t == Duration::from_secs(2))
    );
    assert_eq!(state(&app, 0), WorkerState::Abandoned);
    assert_eq!(log.names("dispose"), ["db"]);
}

#[tokio::test(start_paused = true)]
async fn on_failure_restarts_after_a_doubling_backoff_that_starts_over_after_a_working_run() {
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    let flaky = WorkerFn::new("flaky", move |_, shutdown| {
        let runs = Arc::clone(&counted);
        async move {
            let run = runs.fetch_add(1, Ordering::SeqCst);
            match run {
                // Three quick failures, then a run that works for a long while and fails,
                // then one more quick failure.
                0..=2 | 4 => Err::<(), BoxError>(format!("run {run} failed").into()),
                3 => {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                    Err("run 3 failed after working".into())
                }
                _ => {
                    shutdown.requested().await;
                    Ok(())
                }
            }
        }
    })
    .restart(Restart::OnFailure(Backoff::new(
        Duration::from_millis(100),
        Duration::from_secs(1),
    )));
    let app = App::builder().worker(flaky).build().unwrap();
    let at = tokio::time::Instant::now();
    app.start().await.unwrap();
    let runs_at = |ms: u64| {
        let runs = Arc::clone(&runs);
        async move {
            tokio::time::sleep_until(at + Duration::from_millis(ms)).await;
            runs.load(Ordering::SeqCst)
        }
    };
    // Run 0 fails at 0; waits 100 ms; run 1 at 100 fails; waits 200; run 2 at 300 fails;
    // waits 400; run 3 at 700 works for 10 s and fails at 10.7 s; a run that long starts the
    // backoff over: waits 100; run 4 at 10.8 s fails; waits 200; run 5 at 11.0 s runs on.
    assert_eq!(runs_at(50).await, 1);
    assert_eq!(runs_at(150).await, 2);
    assert_eq!(runs_at(250).await, 2);
    assert_eq!(
        app.container().health().workers[0].state,
        WorkerState::Restarting
    );
    assert_eq!(
        app.container().health().workers[0].restart_in_millis,
        Some(200)
    );
    assert_eq!(runs_at(350).await, 3);
    assert_eq!(runs_at(690).await, 3);
    assert_eq!(runs_at(710).await, 4);
    assert_eq!(runs_at(10_750).await, 4);
    assert_eq!(runs_at(10_850).await, 5);
    assert_eq!(runs_at(10_950).await, 5);
    assert_eq!(runs_at(11_050).await, 6);
    let health = app.container().health();
    assert_eq!(health.workers[0].state, WorkerState::Running);
    assert_eq!(
        (health.workers[0].failures, health.workers[0].restarts),
        (5, 5)
    );
    // It recovered (run 5 works until the shutdown): its failures are its health's, not
    // the close's.
    assert_eq!(
        health.workers[0].last_error.as_deref(),
        Some("run 4 failed")
    );
    app.close().await.unwrap();
    assert_eq!(state(&app, 0), WorkerState::Stopped);
}

#[tokio::test]
async fn close_lists_a_worker_still_failing_and_not_one_that_recovered() {
    // `recovered` fails twice, then works until its signal; `still_down` fails every run;
    // `fails_on_signal` works, then fails when asked to stop.
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    let quick = || {
        Restart::OnFailure(Backoff::new(
            Duration::from_millis(1),
            Duration::from_millis(2),
        ))
    };
    let app = App::builder()
        .worker(
            WorkerFn::new("recovered", move |_, shutdown| {
                let run = counted.fetch_add(1, Ordering::SeqCst);
                async move {
                    if run < 2 {
                        return Err::<(), BoxError>("pool timed out".into());
                    }
                    shutdown.requested().await;
                    Ok(())
                }
            })
            .restart(quick()),
        )
        .worker(
            WorkerFn::new("still_down", |_, _| async {
                Err::<(), BoxError>("still down".into())
            })
            .restart(quick()),
        )
        .worker(WorkerFn::new("fails_on_signal", |_, shutdown| async move {
            shutdown.requested().await;
            Err::<(), BoxError>("could not flush".into())
        }))
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("the first to recover and the second to fail again", || {
        let health = app.container().health();
        health.workers[0].state == WorkerState::Running
            && health.workers[0].failures == 2
            && health.workers[1].failures >= 2
    })
    .await;
    let error = app.close().await.unwrap_err();
    let listed: Vec<_> = error
        .failures
        .iter()
        .map(|f| (f.part.clone(), f.cause.to_string()))
        .collect();
    assert_eq!(
        listed,
        [
            (
                ClosePart::Worker {
                    worker: "still_down".into()
                },
                "still down".to_owned()
            ),
            (
                ClosePart::Worker {
                    worker: "fails_on_signal".into()
                },
                "could not flush".to_owned()
            ),
        ]
    );
    let health = app.container().health();
    assert_eq!(health.workers[0].state, WorkerState::Stopped);
    assert_eq!(health.workers[0].failures, 2);
    assert_eq!(
        health.workers[0].last_error.as_deref(),
        Some("pool timed out")
    );
}

#[tokio::test(start_paused = true)]
async fn a_shutdown_during_the_backoff_ends_the_worker_without_another_run() {
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    let app = App::builder()
        .worker(
            WorkerFn::new("retrier", move |_, _| {
                counted.fetch_add(1, Ordering::SeqCst);
                async { Err::<(), BoxError>("down".into()) }
            })
            .restart(Restart::OnFailure(Backoff::new(
                Duration::from_secs(60),
                Duration::from_secs(60),
            ))),
        )
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("it to wait", || state(&app, 0) == WorkerState::Restarting).await;
    let started = tokio::time::Instant::now();
    assert!(app.close().await.is_err());
    // No waiting out the minute.
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(state(&app, 0), WorkerState::Failed);
}

#[tokio::test]
async fn a_failed_build_at_start_starts_no_worker() {
    let log = Log::default();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log).on_provide(OnProvide::FailTimes(1.into())))
        .worker(logging_worker("relay", &["db"], &log))
        .build()
        .unwrap();
    let error = app.start().await.unwrap_err();
    assert!(error.to_string().contains("db is down"), "{error}");
    tokio::task::yield_now().await;
    assert!(!log.events().contains(&"start relay".into()));
    assert_eq!(state(&app, 0), WorkerState::NotStarted);
    // The app closed itself; a later start starts nothing.
    assert!(app.container().start_workers().await.is_err());
    assert_eq!(state(&app, 0), WorkerState::NotStarted);
}

#[tokio::test]
async fn start_twice_starts_each_worker_once() {
    let runs = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&runs);
    let app = App::builder()
        .worker(WorkerFn::new("once", move |_, shutdown| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                shutdown.requested().await;
                Ok(())
            }
        }))
        .build()
        .unwrap();
    let (a, b) = tokio::join!(app.start(), app.start());
    a.unwrap();
    b.unwrap();
    app.start().await.unwrap();
    until("it to run", || runs.load(Ordering::SeqCst) == 1).await;
    app.close().await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn serve_starts_the_workers_before_the_first_accept() {
    let log = Log::default();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log))
        .worker(logging_worker("relay", &["db"], &log))
        .route(Route::get("/", |_: RequestContext| async { "hi" }))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    until("the relay to start", || {
        log.events().contains(&"start relay".into())
    })
    .await;
    within("stop", server.stop()).await.unwrap();
    assert_eq!(
        log.events()
            .iter()
            .filter(|e| e.starts_with("st"))
            .collect::<Vec<_>>(),
        ["start relay", "stop relay"]
    );
}

#[tokio::test]
async fn serve_ends_with_the_error_when_a_workers_needs_cannot_be_built() {
    let log = Log::default();
    let app = App::builder()
        .provider(Probe::new("db", &[], &log).on_provide(OnProvide::FailTimes(1.into())))
        .worker(logging_worker("relay", &["db"], &log))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served = within("serve", app.serve_until(listener, std::future::pending())).await;
    let error = served.unwrap_err();
    assert!(error.to_string().contains("db is down"), "{error}");
    assert!(app.is_closed());
}

#[tokio::test]
async fn a_container_runs_workers_and_stops_them_in_close() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("db", &[], &log).on_dispose(OnDispose::Succeed))
        .worker(logging_worker("relay", &["db"], &log))
        .build()
        .unwrap();
    container.start_workers().await.unwrap();
    until("the relay to start", || {
        log.events().contains(&"start relay".into())
    })
    .await;
    container.close().await.unwrap();
    let events = log.events();
    assert_eq!(
        events
            .iter()
            .filter(|e| !e.starts_with("provide"))
            .collect::<Vec<_>>(),
        ["start relay", "stop relay", "dispose db"]
    );
    assert_eq!(container.health().workers[0].state, WorkerState::Stopped);
}

#[tokio::test]
async fn a_container_dropped_without_close_signals_its_workers() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("db", &[], &log))
        .worker(logging_worker("relay", &["db"], &log))
        .build()
        .unwrap();
    container.start_workers().await.unwrap();
    until("the relay to start", || {
        log.events().contains(&"start relay".into())
    })
    .await;
    drop(container);
    until("the relay to stop", || {
        log.events().contains(&"stop relay".into())
    })
    .await;
}

#[tokio::test]
async fn a_worker_in_a_module_uses_its_private_keys_under_the_modules_name() {
    let log = Log::default();
    let app = App::builder()
        .module(
            Module::new("orders")
                .provider(Probe::new("outbox", &[], &log))
                .worker(logging_worker("relay", &["outbox"], &log)),
        )
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("the relay to start", || {
        log.events().contains(&"start relay".into())
    })
    .await;
    let health = app.container().health();
    assert_eq!(health.workers[0].name, "orders::relay");
    assert_eq!(health.workers[0].module.as_deref(), Some("orders"));
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_failed_worker_marks_its_module_down() {
    let app = App::builder()
        .module(
            Module::new("feeds").worker(WorkerFn::new("importer", |_, _| async {
                Err::<(), BoxError>("the feed is gone".into())
            })),
        )
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("it to fail", || state(&app, 0) == WorkerState::Failed).await;
    let health = app.container().health();
    let feeds = &health.modules[0];
    assert_eq!(feeds.status, green_tea::health::CheckStatus::Down);
    assert_eq!(
        feeds.reasons,
        ["worker `feeds::importer` failed: the feed is gone"]
    );
    let _ = app.close().await;
}

#[test]
fn build_checks_a_workers_needs_with_the_graph() {
    let error = App::builder()
        .value("db", 1_u32)
        .module(Module::new("billing").value("secret", 2_u32))
        .step(StepFn::new("user", |_, _| Ok(String::from("ada"))))
        .worker(WorkerFn::new("relay", |_, _| async { Ok(()) }).needs::<u32>("broker"))
        .worker(WorkerFn::new("mailer", |_, _| async { Ok(()) }).needs::<String>("user"))
        .worker(WorkerFn::new("auditor", |_, _| async { Ok(()) }).needs::<u64>("db"))
        .worker(WorkerFn::new("spy", |_, _| async { Ok(()) }).needs::<u32>("billing::secret"))
        .build()
        .unwrap_err();
    let codes: Vec<&str> = error.problems().iter().map(Problem::code).collect();
    assert_eq!(codes.len(), 4, "{error}");
    for code in ["GT0001", "GT0004", "GT0006", "GT0014"] {
        assert!(codes.contains(&code), "{code} missing: {error}");
    }
    let text = error.to_string();
    assert!(text.contains("needed by worker `relay`"), "{text}");
    assert!(text.contains("app-scoped worker `mailer`"), "{text}");
    assert!(
        text.contains("help: a worker runs for the whole app"),
        "{text}"
    );
}

#[tokio::test]
async fn an_optional_need_nothing_provides_is_none_for_the_worker() {
    let seen = Arc::new(std::sync::Mutex::new(None));
    let record = Arc::clone(&seen);
    let app = App::builder()
        .worker(
            WorkerFn::new("cache_warmer", move |needs, shutdown| {
                let record = Arc::clone(&record);
                async move {
                    *record.lock().unwrap() = Some(needs.optional::<u32>(0)?.is_none());
                    shutdown.requested().await;
                    Ok(())
                }
            })
            .needs::<u32>("cache?"),
        )
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("it to run", || seen.lock().unwrap().is_some()).await;
    assert_eq!(*seen.lock().unwrap(), Some(true));
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_critical_worker_that_is_not_running_makes_the_app_not_ready() {
    let app = App::builder()
        .worker(
            WorkerFn::new("consumer", |_, _| async {
                Err::<(), BoxError>("no queue".into())
            })
            .critical(),
        )
        .worker(WorkerFn::new("optional", |_, _| async {
            Err::<(), BoxError>("no cache".into())
        }))
        .health_routes("/livez", "/readyz")
        .build()
        .unwrap();
    let health = app.health().await;
    assert!(
        health
            .reasons
            .contains(&"critical worker `consumer` not started".to_owned())
    );
    app.start().await.unwrap();
    until("both to fail", || {
        (0..2).all(|w| state(&app, w) == WorkerState::Failed)
    })
    .await;
    let health = app.health().await;
    assert!(!health.ready);
    assert!(health.workers[0].critical && !health.workers[1].critical);
    // The one that is not critical is not a reason.
    assert_eq!(
        health.reasons,
        ["critical worker `consumer` failed: no queue"]
    );
    let client = TestClient::new(app.clone());
    let ready = client.get("/readyz").send().await;
    assert_eq!(ready.status(), 503);
    let _ = app.close().await;
}

#[tokio::test]
async fn a_test_replaces_a_worker_or_leaves_it_out_by_name() {
    let log = Log::default();
    let orders = || {
        Module::new("orders")
            .provider(Probe::new("outbox", &[], &log))
            .worker(logging_worker("relay", &["outbox"], &log))
    };
    // Replaced: the fake runs in the module, with its private keys.
    let fake_log = log.clone();
    let fake = WorkerFn::new("fake_relay", move |needs, shutdown| {
        let log = fake_log.clone();
        async move {
            needs.get::<Service>(0)?; // the module's private key
            log.push("start fake");
            shutdown.requested().await;
            Ok(())
        }
    })
    .needs::<Service>("outbox");
    let app = App::builder()
        .module(orders())
        .override_worker("orders::relay", fake)
        .build()
        .unwrap();
    app.start().await.unwrap();
    until("the fake to start", || {
        log.events().contains(&"start fake".into())
    })
    .await;
    assert!(!log.events().contains(&"start relay".into()));
    let health = app.container().health();
    assert_eq!(health.workers[0].name, "orders::relay");
    assert!(health.workers[0].overridden, "the health says a fake runs");
    app.close().await.unwrap();
    // Left out: nothing runs.
    let app = App::builder()
        .module(orders())
        .without_worker("orders::relay")
        .build()
        .unwrap();
    app.start().await.unwrap();
    assert!(app.container().health().workers.is_empty());
    app.close().await.unwrap();
}

#[test]
fn two_workers_of_one_name_and_a_change_to_no_worker_are_gt0020() {
    let idle = || WorkerFn::new("relay", |_, _| async { Ok(()) });
    let error = App::builder()
        .worker(idle())
        .worker(idle())
        .module(Module::new("eu").worker(idle()))
        .module(Module::new("us").worker(idle()))
        .override_worker("mailer", WorkerFn::new("fake", |_, _| async { Ok(()) }))
        .without_worker("eu::relya")
        .build()
        .unwrap_err();
    let codes: Vec<&str> = error.problems().iter().map(Problem::code).collect();
    assert_eq!(codes, ["GT0020", "GT0020", "GT0020"], "{error}");
    let text = error.to_string();
    assert!(text.contains("worker `relay`"), "{text}");
    assert!(
        text.contains("has the name of the worker registered at"),
        "{text}"
    );
    assert!(
        text.contains("worker `mailer`") && text.contains("is overridden, but no worker has that name; the workers are `relay`, `relay`, `eu::relay` and `us::relay`"),
        "{text}"
    );
    assert!(text.contains("did you mean `eu::relay`?"), "{text}");
}

#[tokio::test]
async fn a_shutdown_whose_app_is_gone_is_requested() {
    let (trigger, signal) = green_tea::workers::Shutdown::new_pair();
    assert!(!signal.is_requested());
    drop(trigger);
    // Both ways of asking agree: a loop on `is_requested()` ends too.
    assert!(signal.is_requested());
    within("requested()", signal.requested()).await;
}
