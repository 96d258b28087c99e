//! Build timeouts: a `provide` that never answers fails by its timeout (its own, or the app's
//! default), naming the provider, the timeout and the chain that needed it; the build is dropped
//! and its failure not kept, so the next caller starts another; in `start()`, the other builds
//! still running are stopped and what was built is disposed, dependents first. Every test runs
//! on tokio's paused clock: nothing waits in real time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use green_tea::error::FailureCause;
use green_tea::extract::RequestContext;
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::{ContainerBuilder, ProviderFn};

/// Sets its flag when dropped: a future holding it was dropped (cancelled) or finished.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A provider of `key` whose build never ends (a handshake that never answers), with a build
/// timeout of its own if `timeout` is given; `dropped` is set when its build is dropped.
fn hanging(
    key: &'static str,
    dropped: &Arc<AtomicBool>,
    timeout: Option<Duration>,
) -> impl Provider {
    let dropped = Arc::clone(dropped);
    let provider = ProviderFn::new(key, move |_| {
        let guard = Dropped(Arc::clone(&dropped));
        async move {
            std::future::pending::<()>().await;
            drop(guard);
            Ok(0_u32)
        }
    });
    match timeout {
        Some(timeout) => provider.timeout(timeout),
        None => provider,
    }
}

#[tokio::test(start_paused = true)]
async fn a_hanging_build_fails_by_its_own_timeout_with_the_chain_that_needed_it() {
    let dropped = Arc::new(AtomicBool::new(false));
    let pg = hanging("pg", &dropped, Some(Duration::from_secs(5)));
    let migrations = ProviderFn::new("migrations", |needs| async move {
        Ok(*needs.get::<u32>(0)? + 1)
    })
    .needs::<u32>("pg");
    let container = Container::builder()
        .provider(pg)
        .provider(migrations)
        .build()
        .unwrap();
    let started = tokio::time::Instant::now();
    let err = container.get::<u32>("migrations").await.unwrap_err();
    // Its own 5 s, not the app's 30 s.
    assert_eq!(started.elapsed(), Duration::from_secs(5));
    let ProvideError::Failed {
        provider,
        needed_by,
        cause: FailureCause::TimedOut(timeout),
        ..
    } = &err
    else {
        panic!("{err}");
    };
    assert_eq!(provider, "pg");
    assert_eq!(*timeout, Duration::from_secs(5));
    assert_eq!(needed_by, &["migrations"]);
    assert_eq!(
        err.to_string(),
        "provider `pg` failed: did not finish within 5s, needed by `migrations`"
    );
    // The build was dropped, not left running for the next caller to join.
    tokio::task::yield_now().await;
    assert!(dropped.load(Ordering::SeqCst));
    container.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn the_app_s_default_applies_and_a_timed_out_build_is_not_kept() {
    // Hangs the first time, answers the second.
    let calls = Arc::new(AtomicUsize::new(0));
    let flaky = ProviderFn::new("pg", {
        let calls = Arc::clone(&calls);
        move |_| {
            let call = calls.fetch_add(1, Ordering::SeqCst);
            async move {
                if call == 0 {
                    std::future::pending::<()>().await;
                }
                Ok(7_u32)
            }
        }
    });
    let container = Container::builder().provider(flaky).build().unwrap();
    let started = tokio::time::Instant::now();
    let err = container.get::<u32>("pg").await.unwrap_err();
    assert_eq!(started.elapsed(), ContainerBuilder::DEFAULT_BUILD_TIMEOUT);
    assert!(
        matches!(&err, ProvideError::Failed { cause: FailureCause::TimedOut(t), .. } if *t == Duration::from_secs(30)),
        "{err}"
    );
    // Not cached: the next caller builds again, and gets the value.
    assert_eq!(*container.get::<u32>("pg").await.unwrap(), 7);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    container.close().await.unwrap();
}

/// Records the order of disposes.
fn disposing(key: &'static str, log: &Arc<std::sync::Mutex<Vec<&'static str>>>) -> impl Provider {
    struct Logged {
        key: &'static str,
        needs: Vec<&'static str>,
        log: Arc<std::sync::Mutex<Vec<&'static str>>>,
    }
    impl Provider for Logged {
        fn descriptor(&self) -> Descriptor {
            let mut descriptor = Descriptor::new(self.key).provides::<u32>(self.key);
            for need in &self.needs {
                descriptor = descriptor.needs::<u32>(*need);
            }
            descriptor
        }
        async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
            Ok(Provided::one(1_u32))
        }
        async fn dispose(&self, _provided: &Provided) -> Result<(), BoxError> {
            self.log.lock().unwrap().push(self.key);
            Ok(())
        }
    }
    let needs = match key {
        "cache" => vec!["pg"],
        _ => vec![],
    };
    Logged {
        key,
        needs,
        log: Arc::clone(log),
    }
}

#[tokio::test(start_paused = true)]
async fn a_start_that_times_out_stops_the_other_builds_and_disposes_in_reverse() {
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sibling_dropped = Arc::new(AtomicBool::new(false));
    let stuck_dropped = Arc::new(AtomicBool::new(false));
    // `pg` and `cache` (which needs it) build; `stuck` times out after 2 s while `slow` (a
    // sibling with no timeout of its own but the app's 30 s) is still building.
    let stuck = hanging("stuck", &stuck_dropped, Some(Duration::from_secs(2)));
    let app = App::builder()
        .provider(disposing("pg", &log))
        .provider(disposing("cache", &log))
        .provider(stuck)
        .provider(hanging("slow", &sibling_dropped, None))
        .route(
            Route::get("/", |_: RequestContext| async { "ok" })
                .needs::<u32>("cache")
                .needs::<u32>("stuck")
                .needs::<u32>("slow"),
        )
        .build()
        .unwrap();
    let started = tokio::time::Instant::now();
    let err = app.start().await.unwrap_err();
    // Ended by `stuck`'s 2 s, not by `slow`'s 30.
    assert_eq!(started.elapsed(), Duration::from_secs(2));
    assert!(
        err.to_string()
            .starts_with("provider `stuck` failed: did not finish within 2s"),
        "{err}"
    );
    assert!(stuck_dropped.load(Ordering::SeqCst));
    assert!(
        sibling_dropped.load(Ordering::SeqCst),
        "the sibling's build was stopped"
    );
    // What was built is disposed, dependents first.
    assert_eq!(*log.lock().unwrap(), ["cache", "pg"]);
    assert!(app.is_closed());
}

#[tokio::test(start_paused = true)]
async fn a_start_past_its_budget_says_what_was_still_building_and_disposes_what_was_built() {
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let pg_dropped = Arc::new(AtomicBool::new(false));
    // `pg` takes 10 min (within its own generous timeout); `migrations` waits on it; `db`
    // builds at once.
    let pg = ProviderFn::new("pg", {
        let dropped = Arc::clone(&pg_dropped);
        move |_| {
            let guard = Dropped(Arc::clone(&dropped));
            async move {
                tokio::time::sleep(Duration::from_secs(600)).await;
                drop(guard);
                Ok(5432_u32)
            }
        }
    })
    .timeout(Duration::from_secs(3600));
    let migrations = ProviderFn::new("migrations", |needs| async move {
        Ok(*needs.get::<u32>(0)? + 1)
    })
    .needs::<u32>("pg");
    let app = App::builder()
        .provider(pg)
        .provider(migrations)
        .provider(disposing("db", &log))
        .route(
            Route::get("/", |_: RequestContext| async { "ok" })
                .needs::<u32>("migrations")
                .needs::<u32>("db"),
        )
        .start_timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let started = tokio::time::Instant::now();
    let err = app.start().await.unwrap_err();
    assert_eq!(started.elapsed(), Duration::from_secs(60));
    assert_eq!(err.code(), Some("GT0107"));
    let ProvideError::StartTimedOut { timeout, building } = &err else {
        panic!("{err}");
    };
    assert_eq!(*timeout, Duration::from_secs(60));
    let still: Vec<(&str, &[String], &[String])> = building
        .iter()
        .map(|b| (b.provider.as_str(), &b.waiting_on[..], &b.waited_on_by[..]))
        .collect();
    assert_eq!(still, [("pg", &[][..], &["migrations".to_owned()][..])]);
    assert_eq!(
        err.to_string(),
        "error[GT0107]: the start did not finish within 1m; still building: `pg` (in its own \
         build; `migrations` waits on it)"
    );
    // Stopped, and what was built disposed.
    tokio::task::yield_now().await;
    assert!(pg_dropped.load(Ordering::SeqCst));
    assert_eq!(*log.lock().unwrap(), ["db"]);
    assert!(app.is_closed());
}

/// A provider of `key` whose dispose takes `takes` (and records that it finished).
fn slow_to_dispose(
    key: &'static str,
    takes: Duration,
    log: &Arc<std::sync::Mutex<Vec<&'static str>>>,
) -> impl Provider {
    struct Slow {
        key: &'static str,
        takes: Duration,
        log: Arc<std::sync::Mutex<Vec<&'static str>>>,
    }
    impl Provider for Slow {
        fn descriptor(&self) -> Descriptor {
            Descriptor::new(self.key).provides::<u32>(self.key)
        }
        async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
            Ok(Provided::one(1_u32))
        }
        async fn dispose(&self, _provided: &Provided) -> Result<(), BoxError> {
            tokio::time::sleep(self.takes).await;
            self.log.lock().unwrap().push(self.key);
            Ok(())
        }
    }
    Slow {
        key,
        takes,
        log: Arc::clone(log),
    }
}

/// A route that answers after `takes`.
fn slow_route(takes: Duration) -> Route {
    Route::get("/slow", move |_: RequestContext| async move {
        tokio::time::sleep(takes).await;
        "done"
    })
    .needs::<u32>("flush")
}

#[tokio::test(start_paused = true)]
async fn the_close_s_phases_share_one_budget_each_within_its_own_cap() {
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let hook = Module::new("audit").on_shutdown(|| async {
        // Past the dispose timeout (10 s), its own cap.
        tokio::time::sleep(Duration::from_secs(12)).await;
        Ok(())
    });
    let app = App::builder()
        .provider(slow_to_dispose("flush", Duration::from_secs(6), &log))
        .module(hook)
        .route(slow_route(Duration::from_secs(3)))
        .shutdown_timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    app.start().await.unwrap();
    let client = green_tea::test::TestClient::new(app.clone());
    let request = tokio::spawn(async move { client.get("/slow").send().await.text() });
    tokio::task::yield_now().await;
    let started = tokio::time::Instant::now();
    let err = app.close().await.unwrap_err();
    assert_eq!(request.await.unwrap(), "done");
    // The drain took 3 s, the hook its cap of 10, the dispose its 6: 19 s of the 20.
    assert_eq!(started.elapsed(), Duration::from_secs(19));
    let failures: Vec<String> = err
        .failures
        .iter()
        .map(|f| format!("{}: {}", f.part, f.cause))
        .collect();
    assert_eq!(
        failures,
        ["module `audit` on_shutdown: did not finish within 10s"]
    );
    assert_eq!(*log.lock().unwrap(), ["flush"]);
}

#[tokio::test(start_paused = true)]
async fn a_close_past_its_budget_says_which_phase_ran_out() {
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let app = App::builder()
        .provider(slow_to_dispose("flush", Duration::from_secs(1), &log))
        .provider(slow_to_dispose("quick", Duration::from_millis(1), &log))
        .route(slow_route(Duration::from_secs(3600)).needs::<u32>("quick"))
        .shutdown_timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    app.start().await.unwrap();
    let client = green_tea::test::TestClient::new(app.clone());
    let _hanging = tokio::spawn(async move { client.get("/slow").send().await.status() });
    tokio::task::yield_now().await;
    let started = tokio::time::Instant::now();
    let err = app.close().await.unwrap_err();
    // Ended by the budget (10 s), not by the drain's own 15 s.
    assert_eq!(started.elapsed(), Duration::from_secs(10));
    let failures: Vec<String> = err
        .failures
        .iter()
        .map(|f| format!("{}: {}", f.part, f.cause))
        .collect();
    assert_eq!(
        failures,
        [
            "draining (1 request(s) still in flight): the shutdown's budget of 10s ran out",
            "provider `flush` (provides `flush`): the shutdown's budget of 10s ran out",
            "provider `quick` (provides `quick`): the shutdown's budget of 10s ran out",
        ]
    );
    // Nothing is disposed once the budget is spent: the process is about to be killed.
    assert!(log.lock().unwrap().is_empty());
}

/// A provider whose build timeout panics (read from a setting, say) fails its build as a
/// `provide` that panics does: named, with the panic's message, and not kept.
#[tokio::test(start_paused = true)]
async fn a_build_timeout_that_panics_fails_the_build() {
    use green_tea::{BoxError, Container, Descriptor, Needs, Provided, Provider};

    struct Odd;

    impl Provider for Odd {
        fn descriptor(&self) -> Descriptor {
            Descriptor::new("odd").provides::<u8>("odd")
        }

        async fn provide(&self, _: Needs<'_>) -> Result<Provided, BoxError> {
            Ok(Provided::one(1_u8))
        }

        fn build_timeout_for(&self, _: &Needs<'_>) -> Option<std::time::Duration> {
            panic!("no timeout setting")
        }
    }

    let container = Container::builder().provider(Odd).build().unwrap();
    let error = container.get::<u8>("odd").await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "provider `odd` failed: panicked: in its build timeout (`build_timeout_for`): no \
         timeout setting"
    );
    // Health says so, and the next caller tries again (and panics again).
    assert!(container.health().providers[0].error.is_some());
    assert!(container.get::<u8>("odd").await.is_err());
    container.close().await.unwrap();
}
