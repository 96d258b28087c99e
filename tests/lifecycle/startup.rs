//! The startup report (where a start spent its time, its critical path) and `App::ready`,
//! which resolves when the readiness route would first answer 200; on tokio's paused clock,
//! so that each build's time is exact and nothing here depends on the machine's speed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use green_tea::health::{AsyncHealthCheck, Check};
use green_tea::prelude::*;
use green_tea::workers::{Backoff, Restart, WorkerFn, WorkerState};
use green_tea::{BoxError, Needs, ProviderFn};

/// `app.ready()`, failing the test (at once, on the paused clock) rather than hanging it if a
/// change is missed: an hour is far past anything these apps wait for.
async fn ready(app: &App) -> Result<(), green_tea::health::NotReady> {
    tokio::time::timeout(Duration::from_secs(3600), app.ready())
        .await
        .expect("ready() waited an hour: a change it should have seen was missed")
}

/// A build that takes `millis` of tokio's time and provides `T::default()`.
fn sleeps<T: Default + Send + 'static>(
    millis: u64,
) -> impl Fn(Needs<'static>) -> BoxFuture<'static, Result<T, BoxError>> + Send + Sync {
    move |_| {
        async move {
            tokio::time::sleep(Duration::from_millis(millis)).await;
            Ok(T::default())
        }
        .boxed()
    }
}

/// `migrations` waits on `pg`; `billing` on `migrations` and `rates` (which ends long before);
/// `cache` runs beside them and ends before `billing`.
fn shop() -> App {
    App::builder()
        .provider(ProviderFn::new("pg", sleeps::<String>(1_000)))
        .provider(ProviderFn::new("migrations", sleeps::<u32>(2_000)).needs::<String>("pg"))
        .provider(ProviderFn::new("rates", sleeps::<u16>(100)))
        .provider(
            ProviderFn::new("billing", sleeps::<u64>(500))
                .needs::<u32>("migrations")
                .needs::<u16>("rates"),
        )
        .provider(ProviderFn::new("cache", sleeps::<u8>(2_500)))
        .route(
            Route::post("/checkout", |_: RequestContext| async { "ok" })
                .needs::<u64>("billing")
                .needs::<u8>("cache"),
        )
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn the_report_names_the_critical_path_and_what_each_build_waited_on() {
    let app = shop();
    assert!(app.startup().is_none());
    assert!(app.explain_all().startup.is_none());
    app.start().await.unwrap();
    let report = app.startup().unwrap();
    assert_eq!(
        report.critical_path_names(),
        ["pg", "migrations", "billing"]
    );
    assert_eq!(report.took(), Duration::from_millis(3_500));
    assert_eq!(report.critical_time(), Duration::from_millis(3_500));
    // `pg`, `rates` and `cache` at once, then `migrations` beside `cache`.
    assert_eq!(report.peak_concurrency, 3);
    assert_eq!(report.building_micros, 6_100_000);
    let billing = report.build("billing").unwrap();
    assert_eq!(billing.began_micros, 3_000_000);
    assert_eq!(billing.took_micros, 500_000);
    let waited: Vec<&str> = (billing.waited_on.iter())
        .map(|&w| report.builds[w].provider.as_str())
        .collect();
    assert_eq!(
        waited,
        ["rates", "migrations"],
        "the one that held it up last"
    );
    assert!(!report.build("cache").unwrap().critical);

    let text = app.explain_all().to_string();
    assert!(
        text.contains(
            "the start:\ncritical path: 3.500 s of 3.500 s: `pg` → `migrations` → `billing`\n\
             5 builds, at most 3 at once (6.100 s of building in 3.500 s)"
        ),
        "{text}"
    );
    assert!(
        text.contains("  * 1.000 s  2.000 s  provider `migrations`, after `pg`"),
        "{text}"
    );
    let json = app.explain_all().to_json();
    assert_eq!(json["startup"]["took_micros"], 3_500_000);
    let first = json["startup"]["critical_path"][0].as_u64().unwrap() as usize;
    assert_eq!(json["startup"]["builds"][first]["provider"], "pg");
    let html = app.explain_all().to_html();
    assert!(html.contains("<section class=\"startup\"><h2>start</h2><pre>critical path: 3.500 s"));
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_build_a_request_began_is_not_the_starts() {
    let app = shop();
    // A request needs `pg` before the start: built then, found built by the start.
    let _ = app.get::<String>("pg").await.unwrap();
    app.start().await.unwrap();
    let report = app.startup().unwrap();
    assert!(report.build("pg").is_none(), "{report}");
    // Nothing waited on `pg` in this start: `migrations` began at once.
    let migrations = report.build("migrations").unwrap();
    assert_eq!(migrations.began_micros, 0);
    assert!(migrations.waited_on.is_empty());
    assert_eq!(report.build("billing").unwrap().began_micros, 2_000_000);
    app.close().await.unwrap();
}

/// A build a request began, still running when the start needs it, is waited for: it is in
/// the report as joined (from when the start began waiting) and on the critical path.
#[tokio::test(start_paused = true)]
async fn a_build_a_request_began_and_the_start_joined_is_on_the_critical_path() {
    let app = shop();
    let request = tokio::spawn({
        let app = app.clone();
        async move { app.get::<String>("pg").await.map(|_| ()) }
    });
    // The request's build of `pg` is in flight when the start begins.
    tokio::task::yield_now().await;
    app.start().await.unwrap();
    request.await.unwrap().unwrap();
    let report = app.startup().unwrap();
    assert_eq!(
        report.critical_path_names(),
        ["pg", "migrations", "billing"]
    );
    let pg = report.build("pg").unwrap();
    assert!(pg.joined, "{report}");
    assert_eq!((pg.began_micros, pg.took_micros), (0, 1_000_000));
    assert!(
        report
            .to_string()
            .contains("  * 0.000 s  1.000 s  provider `pg` (begun by a request; waited for)"),
        "{report}"
    );
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_failed_start_leaves_no_report() {
    let app = App::builder()
        .provider(ProviderFn::new("pg", |_| async {
            Err::<String, BoxError>("refused".into())
        }))
        .route(Route::get("/", |_: RequestContext| async { "hi" }).needs::<String>("pg"))
        .build()
        .unwrap();
    assert!(app.start().await.is_err());
    assert!(app.startup().is_none());
}

#[tokio::test(start_paused = true)]
async fn ready_resolves_once_the_start_has_succeeded() {
    let app = shop();
    let starting = tokio::spawn({
        let app = app.clone();
        async move { app.start().await }
    });
    ready(&app).await.unwrap();
    // Ready when the start had ended: every build of its 3.5 s done.
    assert!(app.health().await.ready);
    assert!(app.startup().is_some());
    starting.await.unwrap().unwrap();
    // Ready already: at once.
    ready(&app).await.unwrap();
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn ready_fails_with_the_reasons_when_the_start_fails() {
    let app = App::builder()
        .provider(ProviderFn::new("pg", |_| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Err::<String, BoxError>("connection refused".into())
        }))
        .route(Route::get("/", |_: RequestContext| async { "hi" }).needs::<String>("pg"))
        .build()
        .unwrap();
    let waiting = tokio::spawn({
        let app = app.clone();
        async move { ready(&app).await }
    });
    assert!(app.start().await.is_err());
    let error = waiting.await.unwrap().unwrap_err();
    assert_eq!(error.code(), "GT0108");
    assert!(
        error
            .to_string()
            .starts_with("error[GT0108]: the app will not be ready: "),
        "{error}"
    );
    assert!(
        error.reasons.iter().any(|r| r.contains("not started")),
        "{error:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn ready_waits_for_a_critical_worker_to_run_again() {
    let runs = Arc::new(AtomicU32::new(0));
    let consumer = WorkerFn::new("consumer", {
        let runs = Arc::clone(&runs);
        move |_, shutdown| {
            let run = runs.fetch_add(1, Ordering::SeqCst);
            async move {
                if run == 0 {
                    return Err::<(), BoxError>("no queue yet".into());
                }
                shutdown.requested().await;
                Ok(())
            }
        }
    })
    .restart(Restart::OnFailure(Backoff::new(
        Duration::from_secs(5),
        Duration::from_secs(5),
    )))
    .critical();
    let app = App::builder().worker(consumer).build().unwrap();
    let at = tokio::time::Instant::now();
    app.start().await.unwrap();
    // Running once started (ready then too); its first run fails at once.
    while app.container().health().workers[0].state != WorkerState::Restarting {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert!(!app.health().await.ready);
    ready(&app).await.unwrap();
    // Its first run failed; ready only once the restart, 5 s later, runs.
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert!(at.elapsed() >= Duration::from_secs(5));
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn ready_fails_when_a_critical_worker_ends_for_good() {
    let consumer = WorkerFn::new("consumer", |_, _| async {
        Err::<(), BoxError>("no queue".into())
    })
    .critical();
    let app = App::builder().worker(consumer).build().unwrap();
    app.start().await.unwrap();
    // Running once started (ready at that moment); then its run fails, and no policy restarts
    // it: from then on the app will not be ready.
    while app.container().health().workers[0].state != WorkerState::Failed {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let error = ready(&app).await.unwrap_err();
    assert_eq!(
        error.reasons,
        ["critical worker `consumer` failed: no queue"]
    );
    // The close reports the worker's failed run.
    let closed = app.close().await.unwrap_err().to_string();
    assert!(closed.contains("no queue"), "{closed}");
}

/// Down until `up_at`, on tokio's clock.
struct Warming {
    up_at: tokio::time::Instant,
}

impl AsyncHealthCheck for Warming {
    async fn check(&self) -> Check {
        if tokio::time::Instant::now() >= self.up_at {
            Check::up()
        } else {
            Check::down("warming up")
        }
    }
}

#[tokio::test(start_paused = true)]
async fn ready_asks_a_critical_check_again_when_its_answer_expires() {
    let up_at = tokio::time::Instant::now() + Duration::from_secs(12);
    let app = App::builder()
        .value("search", Warming { up_at })
        .critical("search")
        .async_health_check::<Warming>("search")
        .route(Route::get("/", |_: RequestContext| async { "hi" }).needs::<Warming>("search"))
        .build()
        .unwrap();
    app.start().await.unwrap();
    assert!(!app.health().await.ready);
    ready(&app).await.unwrap();
    assert!(tokio::time::Instant::now() >= up_at);
    assert!(app.health().await.ready);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn ready_on_a_closed_app_fails_at_once() {
    let app = shop();
    app.start().await.unwrap();
    app.close().await.unwrap();
    let error = ready(&app).await.unwrap_err();
    assert!(
        error.reasons.contains(&"the app is closed".to_owned()),
        "{error:?}"
    );
}
