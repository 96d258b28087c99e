//! Async health checks (`AppBuilder::async_health_check`): awaited in `app.health().await`,
//! each under its timeout, a panic caught, answers kept for the cache interval, one check in
//! flight shared by concurrent callers; module health, readiness of a critical key, and the
//! readiness route. Time is tokio's paused clock: no test depends on the machine's speed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use green_tea::App;
use green_tea::extract::RequestContext;
use green_tea::health::{AsyncHealthCheck, Check, CheckStatus, CheckTiming};
use green_tea::prelude::Module;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{BoxError, ProviderFn};

/// What a [`Probe`] does when asked.
#[derive(Clone, Copy)]
enum Answer {
    Up,
    Down,
    Degraded,
    /// Answers up after this long.
    UpAfter(Duration),
    /// Never answers.
    Hang,
    Panic,
}

/// An async check that counts how often it runs; its answer can be changed.
struct Probe {
    calls: Arc<AtomicUsize>,
    answer: std::sync::Mutex<Answer>,
}

impl Probe {
    fn new(answer: Answer) -> (Self, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let probe = Probe {
            calls: Arc::clone(&calls),
            answer: std::sync::Mutex::new(answer),
        };
        (probe, calls)
    }

    fn set(&self, answer: Answer) {
        *self.answer.lock().unwrap() = answer;
    }
}

impl AsyncHealthCheck for Probe {
    async fn check(&self) -> Check {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let answer = *self.answer.lock().unwrap();
        match answer {
            Answer::Up => Check::up(),
            Answer::Down => Check::down("connection refused"),
            Answer::Degraded => Check::degraded("replica lagging"),
            Answer::UpAfter(delay) => {
                tokio::time::sleep(delay).await;
                Check::up().detail("slow")
            }
            Answer::Hang => std::future::pending().await,
            Answer::Panic => panic!("pool poisoned"),
        }
    }
}

/// An app with `probe` under `db`, checked with the app's timing.
fn app_with(probe: Probe) -> App {
    App::builder()
        .value("db", probe)
        .async_health_check::<Probe>("db")
        .build()
        .unwrap()
}

/// The app's single async check's report, `db` built first.
async fn db_report(app: &App) -> green_tea::health::CheckReport {
    app.get::<Probe>("db").await.unwrap();
    let health = app.health().await;
    health
        .checks
        .into_iter()
        .find(|c| c.key == "db")
        .expect("a report for db")
}

#[tokio::test(start_paused = true)]
async fn a_check_that_awaits_is_awaited() {
    let (probe, calls) = Probe::new(Answer::UpAfter(Duration::from_millis(300)));
    let app = app_with(probe);
    let report = db_report(&app).await;
    let check = report.check.unwrap();
    assert_eq!(check.status, CheckStatus::Up);
    assert_eq!(check.detail.as_deref(), Some("slow"));
    assert_eq!((report.cached, report.age_millis), (Some(false), Some(0)));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let json = serde_json::to_value(app.health().await).unwrap();
    assert_eq!(json["checks"][0]["check"]["status"], "up");
    assert_eq!(json["checks"][0]["cached"], true);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_check_past_its_timeout_is_down_and_says_so() {
    let (probe, _) = Probe::new(Answer::Hang);
    let app = app_with(probe);
    let check = db_report(&app).await.check.unwrap();
    assert_eq!(check, Check::down("timed out after 1s"));

    // A check's own timeout, and the app's default for the others.
    let (slow, _) = Probe::new(Answer::Hang);
    let (other, _) = Probe::new(Answer::Hang);
    let app = App::builder()
        .value("db", slow)
        .value("cache", other)
        .health_check_timeout(Duration::from_secs(3))
        .async_health_check_with::<Probe>(
            "db",
            CheckTiming::new().timeout(Duration::from_millis(250)),
        )
        .async_health_check::<Probe>("cache")
        .build()
        .unwrap();
    app.get::<Probe>("db").await.unwrap();
    app.get::<Probe>("cache").await.unwrap();
    let started = tokio::time::Instant::now();
    let health = app.health().await;
    let details: Vec<_> = health
        .checks
        .iter()
        .map(|c| c.check.as_ref().unwrap().detail.as_deref().unwrap())
        .collect();
    assert_eq!(details, ["timed out after 250ms", "timed out after 3s"]);
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(3),
        "the checks ran concurrently: the longest timeout, not their sum"
    );
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn an_answer_is_kept_for_the_cache_interval() {
    let (probe, calls) = Probe::new(Answer::Down);
    let app = app_with(probe);
    let db = app.get::<Probe>("db").await.unwrap();
    let healths = futures_util::future::join_all((0..50).map(|_| app.health())).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1, "50 calls, one check");
    let cached = healths
        .iter()
        .filter(|h| h.checks[0].cached == Some(true))
        .count();
    // The check runs in a task of its own: all 50 came while it ran, and shared it.
    assert_eq!(cached, 0);
    assert!(
        healths
            .iter()
            .all(|h| { h.checks[0].check.as_ref().unwrap().status == CheckStatus::Down })
    );

    // Younger than the interval (5 s): kept, with its age.
    db.set(Answer::Up);
    tokio::time::advance(Duration::from_millis(4_999)).await;
    let report = app.health().await.checks.remove(0);
    assert_eq!(report.cached, Some(true));
    assert_eq!(report.age_millis, Some(4_999));
    assert_eq!(report.check.unwrap().status, CheckStatus::Down);
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // Past it: asked anew.
    tokio::time::advance(Duration::from_millis(1)).await;
    let report = app.health().await.checks.remove(0);
    assert_eq!((report.cached, report.age_millis), (Some(false), Some(0)));
    assert_eq!(report.check.unwrap().status, CheckStatus::Up);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_checks_own_and_the_apps_cache_interval() {
    let (db, db_calls) = Probe::new(Answer::Up);
    let (cache, cache_calls) = Probe::new(Answer::Up);
    let app = App::builder()
        .value("db", db)
        .value("cache", cache)
        .async_health_check_with::<Probe>("db", CheckTiming::new().cache_for(Duration::ZERO))
        .async_health_check::<Probe>("cache")
        .health_check_cache(Duration::from_secs(30))
        .build()
        .unwrap();
    app.get::<Probe>("db").await.unwrap();
    app.get::<Probe>("cache").await.unwrap();
    for _ in 0..3 {
        app.health().await;
        tokio::time::advance(Duration::from_secs(10)).await;
    }
    assert_eq!(db_calls.load(Ordering::SeqCst), 3, "zero: asked each time");
    assert_eq!(
        cache_calls.load(Ordering::SeqCst),
        1,
        "the app's 30 s, set after the registration"
    );
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn concurrent_callers_share_the_check_in_flight() {
    let (probe, calls) = Probe::new(Answer::UpAfter(Duration::from_millis(500)));
    let app = app_with(probe);
    app.get::<Probe>("db").await.unwrap();
    let healths = futures_util::future::join_all((0..50).map(|_| app.health())).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert!(
        healths.iter().all(|h| h.checks[0].cached == Some(false)),
        "each waited for the one check: none got an earlier answer"
    );

    // From tasks of their own, on a check with no cache: still one run while it is in flight.
    let (probe, calls) = Probe::new(Answer::UpAfter(Duration::from_millis(500)));
    let app = App::builder()
        .value("db", probe)
        .async_health_check_with::<Probe>("db", CheckTiming::new().cache_for(Duration::ZERO))
        .build()
        .unwrap();
    app.get::<Probe>("db").await.unwrap();
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let app = app.clone();
            tokio::spawn(async move { app.health().await })
        })
        .collect();
    for task in tasks {
        let health = task.await.unwrap();
        assert_eq!(
            health.checks[0].check.as_ref().unwrap().status,
            CheckStatus::Up
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_caller_that_goes_away_leaves_the_check_to_the_next() {
    let (probe, calls) = Probe::new(Answer::UpAfter(Duration::from_millis(500)));
    let app = app_with(probe);
    app.get::<Probe>("db").await.unwrap();
    let gone = tokio::time::timeout(Duration::from_millis(100), app.health()).await;
    assert!(gone.is_err(), "given up before the check answered");
    let started = tokio::time::Instant::now();
    let report = app.health().await.checks.remove(0);
    assert_eq!(report.check.unwrap().status, CheckStatus::Up);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the same check, finished");
    assert_eq!(started.elapsed(), Duration::from_millis(400));
    app.close().await.unwrap();
}

/// A check whose every caller gave up runs on to its end in a task of its own: its answer is
/// there (cached, of when it came) without anyone waiting for it, and no frozen check holds
/// its slot (a pool's connection) until a next caller.
#[tokio::test(start_paused = true)]
async fn a_check_nobody_waits_for_any_more_runs_to_its_end() {
    let (probe, calls) = Probe::new(Answer::UpAfter(Duration::from_millis(500)));
    let app = app_with(probe);
    app.get::<Probe>("db").await.unwrap();
    let gone = tokio::time::timeout(Duration::from_millis(100), app.health()).await;
    assert!(gone.is_err(), "given up before the check answered");
    tokio::time::sleep(Duration::from_millis(600)).await;
    let report = app.health().await.checks.remove(0);
    assert_eq!(report.check.unwrap().status, CheckStatus::Up);
    assert_eq!(report.cached, Some(true), "answered while nobody waited");
    assert_eq!(report.age_millis, Some(200));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_panicking_check_is_down_and_the_app_goes_on() {
    let (bad, _) = Probe::new(Answer::Panic);
    let (good, _) = Probe::new(Answer::Up);
    let app = App::builder()
        .value("db", bad)
        .value("cache", good)
        .async_health_check::<Probe>("db")
        .async_health_check::<Probe>("cache")
        .route(Route::get("/", |_: RequestContext| async { "hi" }))
        .build()
        .unwrap();
    app.get::<Probe>("db").await.unwrap();
    app.get::<Probe>("cache").await.unwrap();
    let health = app.health().await;
    assert_eq!(
        health.checks[0].check,
        Some(Check::down("the check panicked: pool poisoned"))
    );
    assert_eq!(health.checks[1].check, Some(Check::up()));
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/").send().await.text(), "hi");
    // The panic's answer is kept like any other.
    assert_eq!(app.health().await.checks[0].cached, Some(true));
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_value_not_built_is_not_built_to_be_asked() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let app = App::builder()
        .provider(ProviderFn::new("db", move |_| {
            let calls = Arc::clone(&counted);
            async move {
                Ok::<_, BoxError>(Probe {
                    calls,
                    answer: std::sync::Mutex::new(Answer::Up),
                })
            }
        }))
        .async_health_check::<Probe>("db")
        .build()
        .unwrap();
    let health = app.health().await;
    let report = &health.checks[0];
    assert_eq!(report.key, "db");
    assert!(report.check.is_none() && report.cached.is_none() && report.age_millis.is_none());
    let json = serde_json::to_value(&health).unwrap();
    assert_eq!(
        json["checks"][0],
        serde_json::json!({"key": "db", "check": null, "module": null})
    );
    assert_eq!(
        health.providers[0].state,
        green_tea::health::ProviderState::NotBuilt
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    app.get::<Probe>("db").await.unwrap();
    assert!(app.health().await.checks[0].check.is_some());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    app.close().await.unwrap();
    assert!(
        app.health().await.checks[0].check.is_none(),
        "disposed: not asked"
    );
}

#[tokio::test(start_paused = true)]
async fn an_async_check_counts_in_its_modules_health() {
    let (probe, _) = Probe::new(Answer::Degraded);
    let app = App::builder()
        .module(
            Module::new("billing")
                .value("db", probe)
                .value("name", String::from("billing"))
                .export("db"),
        )
        .async_health_check_with::<Probe>(
            "billing::db",
            CheckTiming::new().cache_for(Duration::ZERO),
        )
        .build()
        .unwrap();
    let health = app.health().await;
    assert_eq!(
        health.modules[0].status,
        CheckStatus::Up,
        "not built, not asked"
    );
    let db = app.get::<Probe>("billing::db").await.unwrap();
    let health = app.health().await;
    assert_eq!(health.checks[0].module.as_deref(), Some("billing"));
    assert_eq!(health.modules[0].status, CheckStatus::Degraded);
    assert_eq!(
        health.modules[0].reasons,
        ["check `billing::db` degraded: replica lagging"]
    );

    db.set(Answer::Down);
    let health = app.health().await;
    assert_eq!(health.modules[0].status, CheckStatus::Down);
    assert_eq!(
        health.modules[0].reasons,
        ["check `billing::db` down: connection refused"]
    );
    drop(db);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_down_check_of_a_critical_key_makes_the_app_not_ready() {
    let (db, _) = Probe::new(Answer::Down);
    let (cache, _) = Probe::new(Answer::Down);
    let app = App::builder()
        .value("db", db)
        .value("cache", cache)
        .critical("db")
        .async_health_check::<Probe>("db")
        .async_health_check::<Probe>("cache")
        .build()
        .unwrap();
    app.start().await.unwrap();
    let health = app.health().await;
    assert!(health.ready, "not built: not asked");
    let db = app.get::<Probe>("db").await.unwrap();
    app.get::<Probe>("cache").await.unwrap();
    let health = app.health().await;
    assert!(!health.ready && health.live);
    assert_eq!(
        health.reasons,
        ["critical `db`: check down: connection refused"],
        "a down check of a key not marked critical (cache) leaves readiness alone"
    );

    // Degraded is ready; the answer changes once the cache interval has passed.
    db.set(Answer::Degraded);
    assert!(!app.health().await.ready, "the kept answer");
    tokio::time::advance(CheckTiming::DEFAULT_CACHE).await;
    let health = app.health().await;
    assert!(health.ready, "{:?}", health.reasons);
    drop(db);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn the_readiness_route_is_503_json_while_a_critical_check_is_down() {
    let (probe, calls) = Probe::new(Answer::Hang);
    let app = App::builder()
        .value("db", probe)
        .critical("db")
        .async_health_check_with::<Probe>(
            "db",
            CheckTiming::new().timeout(Duration::from_millis(200)),
        )
        .health_routes("/healthz", "/readyz")
        .route(Route::get("/orders", |_: RequestContext| async { "orders" }).needs::<Probe>("db"))
        .build()
        .unwrap();
    app.start().await.unwrap();
    let client = TestClient::new(app.clone());
    let ready = client.get("/readyz").send().await;
    assert_eq!(ready.status(), 503);
    assert_eq!(ready.header("content-type"), Some("application/json"));
    assert_eq!(ready.header("cache-control"), Some("no-store"));
    let body: serde_json::Value = ready.json();
    assert_eq!(body["ready"], false);
    assert_eq!(
        body["reasons"],
        serde_json::json!(["critical `db`: check down: timed out after 200ms"])
    );
    assert_eq!(body["checks"][0]["check"]["status"], "down");
    assert_eq!(body["checks"][0]["cached"], false);
    assert_eq!(body["checks"][0]["age_millis"], 0);

    // Liveness asks no check; the other routes are served.
    assert_eq!(client.get("/healthz").send().await.status(), 200);
    assert_eq!(client.get("/orders").send().await.text(), "orders");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let again = client
        .get("/readyz")
        .send()
        .await
        .json::<serde_json::Value>();
    assert_eq!(again["checks"][0]["cached"], true);
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // HEAD too; any other method is a 405 without asking.
    assert_eq!(
        client
            .request(green_tea::http::Method::HEAD, "/readyz")
            .send()
            .await
            .status(),
        503
    );
    assert_eq!(client.post("/readyz").send().await.status(), 405);

    // Once it answers up (past the cache interval), ready.
    app.get::<Probe>("db").await.unwrap().set(Answer::Up);
    tokio::time::advance(CheckTiming::DEFAULT_CACHE).await;
    assert_eq!(client.get("/readyz").send().await.status(), 200);
    app.close().await.unwrap();
}

#[test]
fn an_async_check_of_an_unknown_key_or_another_type_is_gt0009() {
    let err = App::builder()
        .value("db", 1_u32)
        .async_health_check::<Probe>("db")
        .async_health_check::<Probe>("dbb")
        .build()
        .unwrap_err();
    assert_eq!(err.problems().len(), 2, "{err}");
    assert!(err.problems().iter().all(|p| p.code() == "GT0009"));
    let text = err.to_string();
    assert!(
        text.contains("`async_health_check::<Probe>(\"db\")`"),
        "{text}"
    );
    assert!(text.contains("is not a `Probe`"), "{text}");
    assert!(text.contains("nothing provides `dbb`"), "{text}");
}

#[test]
fn the_health_future_is_send() {
    fn send<T: Send>(_: &T) {}
    let app = App::builder().build().unwrap();
    send(&app.health());
}
