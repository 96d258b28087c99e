//! `App::reload()` and `Container::reload()` (a container on its own, at the end): settings
//! read again from a real file; a change of a field marked `reload`
//! builds what it reaches as a new generation beside the old, checked, swapped in whole; every
//! failure leaves the old generation serving. Disposals are counted per value: nothing is
//! disposed twice, nothing shared is disposed early, nothing is leaked.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use green_tea::extract::RequestContext;
use green_tea::health::{AsyncHealthCheck, Check};
use green_tea::prelude::*;
use green_tea::reload::ReloadError;
use green_tea::routing::Route;
use green_tea::settings::Sources;
use green_tea::test::TestClient;
use green_tea::workers::WorkerFn;
use tokio::sync::Notify;

/// A settings file of the test's own.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("green-tea-reload-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir.join("settings.toml"))
    }

    fn write(&self, text: &str) {
        std::fs::write(&self.0, text).unwrap();
    }

    fn sources(&self) -> Sources {
        Sources::from_env_map(Vec::<(String, String)>::new())
            .file(&self.0)
            .strict()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
    }
}

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
struct BillingSettings {
    /// Where billing is: a change needs a restart.
    #[settings(default = "http://127.0.0.1:3001")]
    url: String,
    #[settings(default = "2s", reload)]
    timeout: Duration,
    /// Whether billing's health check says down (for the unhealthy reload).
    #[settings(default = "false", reload)]
    down: bool,
    /// Whether billing's build fails (for the failed reload).
    #[settings(default = "false", reload)]
    broken: bool,
}

/// Billing's client: the timeout it was built with, and its number among the clients built.
#[derive(Debug)]
struct Billing {
    timeout: Duration,
    built: u32,
    down: bool,
}

impl AsyncHealthCheck for Billing {
    async fn check(&self) -> Check {
        match self.down {
            true => Check::down("billing says it is down"),
            false => Check::up(),
        }
    }
}

/// The database: needs no settings, so a reload shares it.
#[derive(Debug)]
struct Db(u32);

/// Counts builds and disposals, by value.
#[derive(Default)]
struct Counts {
    billing_built: AtomicU32,
    db_built: AtomicU32,
    /// The `built` number of each billing disposed, in order.
    billing_disposed: Mutex<Vec<u32>>,
    db_disposed: AtomicUsize,
}

struct BillingProvider(Arc<Counts>);

#[provider(provides = "billing", needs = ["billingSettings"], discover = false)]
impl BillingProvider {
    async fn provide(&self, settings: &BillingSettings) -> Result<Billing, BoxError> {
        if settings.broken {
            return Err(format!("billing's handshake at {} was refused", settings.url).into());
        }
        let built = self.0.billing_built.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Billing {
            timeout: settings.timeout,
            built,
            down: settings.down,
        })
    }

    async fn dispose(&self, billing: &Billing) {
        self.0.billing_disposed.lock().unwrap().push(billing.built);
    }
}

struct DbProvider(Arc<Counts>);

#[provider(provides = "db", discover = false)]
impl DbProvider {
    async fn provide(&self) -> Db {
        Db(self.0.db_built.fetch_add(1, Ordering::SeqCst) + 1)
    }

    async fn dispose(&self, _db: &Db) {
        self.0.db_disposed.fetch_add(1, Ordering::SeqCst);
    }
}

/// `GET /charge`: billing's timeout and number, and the database's, as one line.
async fn charge(request: RequestContext) -> Result<String, green_tea::HttpError> {
    let billing = request.need::<Billing>(0)?;
    let db = request.need::<Db>(1)?;
    Ok(format!(
        "{:?} #{} db #{}",
        billing.timeout, billing.built, db.0
    ))
}

/// The app of these tests: billing (from reloadable settings), the database beside it, and a
/// route that reads both (under a route layer); `held` lets a request wait, mid-handler, for
/// the test.
fn app(scratch: &Scratch, counts: &Arc<Counts>, held: Option<Arc<Notify>>) -> App {
    let held_route = Route::get("/held", move |request: RequestContext| {
        let held = held.clone();
        async move {
            let billing = request.need::<Billing>(0)?;
            if let Some(held) = held {
                held.notified().await;
            }
            Ok::<_, green_tea::HttpError>(format!("{:?} #{}", billing.timeout, billing.built))
        }
    })
    .needs::<Billing>("billing");
    App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(counts)))
        .provider(DbProvider(Arc::clone(counts)))
        .async_health_check::<Billing>("billing")
        // Under a layer of its own: made once, it serves every generation.
        .route(
            Route::get("/charge", charge)
                .needs::<Billing>("billing")
                .needs::<Db>("db")
                .layer(tower_http::trace::TraceLayer::new_for_http()),
        )
        .route(held_route)
        .build()
        .unwrap()
}

async fn get(app: &App, path: &str) -> String {
    let response = TestClient::new(app.clone()).get(path).send().await;
    assert_eq!(response.status(), 200, "{}", response.text());
    response.text()
}

#[tokio::test]
async fn a_changed_reloadable_field_builds_what_it_reaches_anew_and_shares_the_rest() {
    let scratch = Scratch::new("good");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();
    assert_eq!(get(&app, "/charge").await, "2s #1 db #1");
    assert_eq!(app.container().generation(), 0);

    // Nothing changed: nothing happens.
    assert!(app.reload().await.unwrap().is_none());
    assert_eq!(counts.billing_built.load(Ordering::SeqCst), 1);

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let report = app.reload().await.unwrap().expect("a field changed");
    assert_eq!(report.generation, 1);
    assert_eq!(report.rebuilt, ["BillingSettings", "BillingProvider"]);
    let change = &report.changes[0];
    assert_eq!(
        (change.variable.as_str(), change.field.as_str()),
        ("BILLING_TIMEOUT", "billingSettings.timeout")
    );
    assert_eq!(change.from, "2s");
    assert!(change.to.starts_with("5s ("), "{}", change.to);
    assert_eq!(report.changes.len(), 1, "{report}");
    assert_eq!(app.container().generation(), 1);

    // The new billing, the same database.
    assert_eq!(get(&app, "/charge").await, "5s #2 db #1");
    assert_eq!(counts.db_built.load(Ordering::SeqCst), 1);
    // The settings report shows what serves.
    let report = app.container().settings_report().to_string();
    assert!(report.contains("timeout = 5s"), "{report}");

    // The old billing is disposed once no request holds it: none does.
    wait_for(|| counts.billing_disposed.lock().unwrap().len() == 1).await;
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 0);

    app.close().await.unwrap();
    // Each value disposed once: both billings, the one database.
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 1);
}

/// Waits (yielding) until `done`, for work the app does in a task of its own.
async fn wait_for(done: impl Fn() -> bool) {
    for _ in 0..10_000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("never happened");
}

#[tokio::test]
async fn a_request_that_began_before_the_swap_finishes_on_the_old_generation() {
    let scratch = Scratch::new("in-flight");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let held = Arc::new(Notify::new());
    let app = app(&scratch, &counts, Some(Arc::clone(&held)));
    app.start().await.unwrap();

    let client = TestClient::new(app.clone());
    let before = tokio::spawn(async move { client.get("/held").send().await.text() });
    // It has its billing, and waits.
    wait_for(|| counts.billing_built.load(Ordering::SeqCst) == 1).await;
    tokio::task::yield_now().await;

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    app.reload().await.unwrap().expect("a field changed");
    // After the swap: the new billing.
    assert_eq!(get(&app, "/charge").await, "5s #2 db #1");
    // The old billing is not disposed while the request that began on it runs.
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(counts.billing_disposed.lock().unwrap().is_empty());

    held.notify_one();
    assert_eq!(before.await.unwrap(), "2s #1");
    wait_for(|| counts.billing_disposed.lock().unwrap().len() == 1).await;
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1]);
    app.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn close_drains_a_replaced_generation_s_requests_then_disposes_it() {
    let scratch = Scratch::new("close");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let held = Arc::new(Notify::new());
    let app = app(&scratch, &counts, Some(Arc::clone(&held)));
    app.start().await.unwrap();
    let client = TestClient::new(app.clone());
    let before = tokio::spawn(async move { client.get("/held").send().await.text() });
    wait_for(|| counts.billing_built.load(Ordering::SeqCst) == 1).await;
    tokio::task::yield_now().await;
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    app.reload().await.unwrap().expect("a field changed");

    let closing = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(
        !closing.is_finished(),
        "close waits for the old generation's request"
    );
    assert!(counts.billing_disposed.lock().unwrap().is_empty());
    held.notify_one();
    assert_eq!(before.await.unwrap(), "2s #1");
    closing.await.unwrap().unwrap();
    // The old billing, then the new, each once; the database once.
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_file_with_problems_keeps_the_old_generation_and_names_every_problem() {
    let scratch = Scratch::new("bad");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();
    assert_eq!(get(&app, "/charge").await, "2s #1 db #1");

    scratch.write("[billing]\ntimeout = \"soon\"\ndown = \"maybe\"\ntimeoutt = \"1s\"\n");
    let error = app.reload().await.unwrap_err();
    let ReloadError::Invalid(problems) = &error else {
        panic!("{error}")
    };
    let codes: Vec<&str> = problems.problems().iter().map(|p| p.code()).collect();
    assert_eq!(codes.len(), 3, "{error}");
    let text = error.to_string();
    for named in [
        "`timeout` of `billingSettings`",
        "`down` of `billingSettings`",
        "`billing.timeoutt`",
    ] {
        assert!(text.contains(named), "{named} in {text}");
    }
    // The old generation serves on; nothing was built or disposed.
    assert_eq!(app.container().generation(), 0);
    assert_eq!(get(&app, "/charge").await, "2s #1 db #1");
    assert_eq!(counts.billing_built.load(Ordering::SeqCst), 1);
    // Health says the last reload failed, and why.
    let health = app.health().await;
    assert_eq!(health.generation, 0);
    let failed = health.reload_failure.expect("the failed reload");
    assert!(
        failed.contains("`timeout` of `billingSettings`"),
        "{failed}"
    );

    // A file that is not TOML at all: said, nothing changes.
    scratch.write("[billing\n");
    let error = app.reload().await.unwrap_err();
    assert!(error.to_string().contains("is not valid TOML"), "{error}");
    assert_eq!(get(&app, "/charge").await, "2s #1 db #1");
    app.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1]);
}

#[tokio::test]
async fn a_change_that_needs_a_restart_refuses_the_whole_reload() {
    let scratch = Scratch::new("restart");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();

    scratch.write("[billing]\ntimeout = \"5s\"\nurl = \"http://127.0.0.1:3002\"\n");
    let error = app.reload().await.unwrap_err();
    assert_eq!(error.code(), Some("GT0109"), "{error}");
    let changes = error.changes();
    assert_eq!(changes.len(), 2, "{error}");
    let url = changes
        .iter()
        .find(|c| c.field == "billingSettings.url")
        .unwrap();
    assert_eq!(
        url.restart_because,
        ["`billingSettings.url` is not marked `reload`"]
    );
    let timeout = changes
        .iter()
        .find(|c| c.field == "billingSettings.timeout")
        .unwrap();
    assert!(timeout.reloadable());
    let text = error.to_string();
    assert!(
        text.contains("needs a restart: `billingSettings.url` is not marked `reload`"),
        "{text}"
    );
    // Not even the reloadable field took effect.
    assert_eq!(get(&app, "/charge").await, "2s #1 db #1");
    assert_eq!(counts.billing_built.load(Ordering::SeqCst), 1);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_failed_build_keeps_the_old_generation_and_disposes_nothing_it_shares() {
    let scratch = Scratch::new("failed");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();

    scratch.write("[billing]\ntimeout = \"5s\"\nbroken = true\n");
    let error = app.reload().await.unwrap_err();
    let ReloadError::Failed {
        error: failed,
        changes,
    } = &error
    else {
        panic!("{error}")
    };
    assert_eq!(changes.len(), 2);
    assert!(failed.to_string().contains("was refused"), "{failed}");
    assert_eq!(app.container().generation(), 0);
    assert_eq!(get(&app, "/charge").await, "2s #1 db #1");
    // The database was shared, and is not disposed; neither is the old billing.
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 0);
    assert!(counts.billing_disposed.lock().unwrap().is_empty());

    // Fixed: the next reload takes effect.
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let report = app.reload().await.unwrap().expect("a field changed");
    assert_eq!(report.generation, 1);
    assert_eq!(get(&app, "/charge").await, "5s #2 db #1");
    app.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_rebuilt_provider_whose_health_check_says_down_keeps_the_old() {
    let scratch = Scratch::new("unhealthy");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();

    scratch.write("[billing]\ntimeout = \"5s\"\ndown = true\n");
    let error = app.reload().await.unwrap_err();
    assert_eq!(error.code(), Some("GT0110"), "{error}");
    assert!(
        error
            .to_string()
            .contains("`billing`: check down: billing says it is down"),
        "{error}"
    );
    // The new billing was built, asked, and disposed; the old serves on, and the health is
    // the old one's (the new one's answer was not kept).
    assert_eq!(counts.billing_built.load(Ordering::SeqCst), 2);
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [2]);
    assert_eq!(get(&app, "/charge").await, "2s #1 db #1");
    let health = app.health().await;
    let billing = health.checks.iter().find(|c| c.key == "billing").unwrap();
    assert_eq!(
        billing.check.as_ref().unwrap().status,
        green_tea::health::CheckStatus::Up
    );
    assert!(health.reload_failure.unwrap().contains("GT0110"));
    app.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [2, 1]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_worker_that_needs_a_rebuilt_provider_restarts_on_the_new_generation() {
    let scratch = Scratch::new("worker");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let seen = Arc::new(Mutex::new(Vec::<Duration>::new()));
    let ran_db = Arc::new(AtomicUsize::new(0));
    let worker = WorkerFn::new("settler", {
        let seen = Arc::clone(&seen);
        move |needs, shutdown| {
            let seen = Arc::clone(&seen);
            async move {
                seen.lock().unwrap().push(needs.get::<Billing>(0)?.timeout);
                shutdown.requested().await;
                Ok(())
            }
        }
    })
    .needs::<Billing>("billing");
    let other = WorkerFn::new("auditor", {
        let ran = Arc::clone(&ran_db);
        move |_, shutdown| {
            let ran = Arc::clone(&ran);
            async move {
                ran.fetch_add(1, Ordering::SeqCst);
                shutdown.requested().await;
                Ok(())
            }
        }
    })
    .needs::<Db>("db");
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .provider(DbProvider(Arc::clone(&counts)))
        .worker(worker)
        .worker(other)
        .build()
        .unwrap();
    app.start().await.unwrap();
    wait_for(|| seen.lock().unwrap().len() == 1).await;

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let report = app.reload().await.unwrap().expect("a field changed");
    assert_eq!(report.workers, ["settler"]);
    wait_for(|| seen.lock().unwrap().len() == 2).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [Duration::from_secs(2), Duration::from_secs(5)]
    );
    // The worker that needs nothing rebuilt ran once, and runs on.
    assert_eq!(ran_db.load(Ordering::SeqCst), 1);
    let health = app.health().await;
    assert!(
        health
            .workers
            .iter()
            .all(|w| w.state.to_string() == "running"),
        "{:?}",
        health.workers
    );
    // Its old billing is disposed once the worker let it go.
    wait_for(|| counts.billing_disposed.lock().unwrap().len() == 1).await;
    app.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_reload_after_close_changes_nothing() {
    let scratch = Scratch::new("closed");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();
    app.close().await.unwrap();
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    assert!(matches!(app.reload().await, Err(ReloadError::Closed)));
    assert_eq!(counts.billing_built.load(Ordering::SeqCst), 1);
}

/// Two saves within one poll interval, then quiet: one reload, of the last save. On tokio's
/// paused clock: the polls are the clock's, the file is real.
#[tokio::test(start_paused = true)]
async fn a_change_of_the_watched_file_reloads_once_per_save() {
    let scratch = Scratch::new("watched");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .route(
            Route::get("/held", |request: RequestContext| async move {
                let billing = request.need::<Billing>(0)?;
                Ok::<_, green_tea::HttpError>(format!("{:?}", billing.timeout))
            })
            .needs::<Billing>("billing"),
        )
        .reload_on_file_change(Duration::from_secs(1))
        .build()
        .unwrap();
    app.start().await.unwrap();

    // A save, then another half a poll later: the first poll sees a change, the second
    // another, the third none: then it reloads, once.
    scratch.write("[billing]\ntimeout = \"3s\"\n");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    for _ in 0..100 {
        if app.health().await.generation == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(app.health().await.generation, 1);
    assert_eq!(get(&app, "/held").await, "5s");
    // Quiet: no other reload.
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(app.health().await.generation, 1);
    assert_eq!(counts.billing_built.load(Ordering::SeqCst), 2);

    // A save with a problem is reported, and the generation serves on.
    scratch.write("[billing]\ntimeout = \"never\"\n");
    for _ in 0..100 {
        if app.health().await.reload_failure.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let failure = app
        .health()
        .await
        .reload_failure
        .expect("the failed reload");
    assert!(
        failure.contains("`timeout` of `billingSettings`"),
        "{failure}"
    );
    assert_eq!(get(&app, "/held").await, "5s");

    // The file gone: said, and the generation serves on.
    std::fs::remove_file(&scratch.0).unwrap();
    for _ in 0..100 {
        let failure = app.health().await.reload_failure;
        if failure.is_some_and(|f| f.contains("does not exist")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let failure = app
        .health()
        .await
        .reload_failure
        .expect("the failed reload");
    assert!(failure.contains("does not exist"), "{failure}");
    // Put back as it was: nothing changed, and the failure is no longer the last word.
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    for _ in 0..100 {
        if app.health().await.reload_failure.is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(app.health().await.reload_failure.is_none());
    assert_eq!(app.health().await.generation, 1);
    assert_eq!(get(&app, "/held").await, "5s");
    app.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
}

/// Billing behind a decorator, and a list of notifiers one of which reads the settings: a
/// reload builds the decorator, the contribution and the list anew with what they wrap, and
/// shares the contribution that reads nothing.
#[tokio::test]
async fn a_reload_builds_decorators_and_collections_of_what_it_reaches_anew() {
    let scratch = Scratch::new("decorated");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .decorator(labelled::decorator())
        .provider(settings_notifier::provider())
        .provider(fixed_notifier::provider())
        .provider(announcer::provider())
        .build()
        .unwrap();
    let labelled = app.get::<Billing>("billing").await.unwrap();
    assert_eq!(labelled.built, 101, "the decorator's mark on #1");
    let fixed = app.get::<String>("announcer").await.unwrap();
    assert_eq!(*fixed, "mail and sms within 2s");

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let report = app.reload().await.unwrap().expect("a field changed");
    for rebuilt in [
        "BillingProvider",
        "labelled",
        "settings_notifier",
        "announcer",
    ] {
        assert!(
            report.rebuilt.iter().any(|r| r == rebuilt),
            "{rebuilt} in {report}"
        );
    }
    assert!(
        !report.rebuilt.iter().any(|r| r == "fixed_notifier"),
        "{report}"
    );
    let labelled = app.get::<Billing>("billing").await.unwrap();
    assert_eq!(
        (labelled.built, labelled.timeout),
        (102, Duration::from_secs(5))
    );
    assert_eq!(
        *app.get::<String>("announcer").await.unwrap(),
        "mail and sms within 5s"
    );
    app.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
}

#[decorator(decorates = "billing", discover = false)]
fn labelled(inner: &Billing) -> Billing {
    Billing {
        timeout: inner.timeout,
        built: inner.built + 100,
        down: inner.down,
    }
}

#[provider(provides = "notifiers[]", needs = ["billingSettings"], discover = false)]
fn settings_notifier(settings: &BillingSettings) -> String {
    format!("sms within {:?}", settings.timeout)
}

#[provider(provides = "notifiers[]", discover = false)]
fn fixed_notifier() -> String {
    "mail".to_owned()
}

#[provider(provides = "announcer", needs = ["notifiers[]"], discover = false)]
fn announcer(notifiers: All<'_, String>) -> String {
    let mut names: Vec<&str> = notifiers.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.join(" and ")
}

/// Work a handler kept in flight (`keep_in_flight`) holds the generation it began on: the old
/// billing is disposed only once its guard is dropped.
#[tokio::test]
async fn work_kept_in_flight_holds_its_generation_until_its_guard_drops() {
    let scratch = Scratch::new("kept");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let release = Arc::new(Notify::new());
    let finished = Arc::new(Mutex::new(None::<String>));
    let route = Route::post("/later", {
        let release = Arc::clone(&release);
        let finished = Arc::clone(&finished);
        move |request: RequestContext| {
            let release = Arc::clone(&release);
            let finished = Arc::clone(&finished);
            async move {
                let billing = request.need::<Billing>(0)?;
                let guard = request.keep_in_flight();
                tokio::spawn(async move {
                    release.notified().await;
                    *finished.lock().unwrap() = Some(format!("{:?}", billing.timeout));
                    drop(guard);
                });
                Ok::<_, green_tea::HttpError>("accepted")
            }
        }
    })
    .needs::<Billing>("billing");
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .route(route)
        .build()
        .unwrap();
    app.start().await.unwrap();
    let response = TestClient::new(app.clone()).post("/later").send().await;
    assert_eq!(response.text(), "accepted");

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    app.reload().await.unwrap().expect("a field changed");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(
        counts.billing_disposed.lock().unwrap().is_empty(),
        "held by the kept work"
    );
    release.notify_one();
    wait_for(|| counts.billing_disposed.lock().unwrap().len() == 1).await;
    assert_eq!(finished.lock().unwrap().as_deref(), Some("2s"));
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1]);
    app.close().await.unwrap();
}

/// The explain model says what reloads: the generation serving, the last failure, and what a
/// change of each reloadable field builds anew; in the text, the JSON and the page.
#[tokio::test]
async fn explain_says_the_generation_the_last_failure_and_what_each_reloadable_field_rebuilds() {
    let scratch = Scratch::new("explain");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    let explained = app.explain_all();
    assert_eq!(explained.reload.generation, 0);
    let variables: Vec<&str> = (explained.reload.settings.iter())
        .map(|s| s.reload.variable.as_str())
        .collect();
    assert_eq!(
        variables,
        ["BILLING_TIMEOUT", "BILLING_DOWN", "BILLING_BROKEN"]
    );

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    app.reload().await.unwrap().expect("a field changed");
    scratch.write("[billing]\ntimeout = \"oops\"\n");
    app.reload().await.unwrap_err();
    let explained = app.explain_all();
    let text = explained.to_string();
    assert!(
        text.contains("reload: generation 1 serves\n  the last reload failed: "),
        "{text}"
    );
    assert!(
        text.contains(
            "`BILLING_TIMEOUT` (`billingSettings.timeout`): reloadable\n  \
             a change builds anew: `BillingSettings` → `BillingProvider`"
        ),
        "{text}"
    );
    let json = explained.to_json();
    assert_eq!(json["reload"]["generation"], 1);
    assert!(
        json["reload"]["last_failure"]
            .as_str()
            .unwrap()
            .contains("GT0017")
    );
    assert!(explained.to_html().contains("<h2>reload</h2>"));
    app.close().await.unwrap();
}

#[derive(Settings)]
#[settings(provides = "vaultSettings", prefix = "VAULT", discover = false)]
struct VaultSettings {
    #[settings(reload)]
    token: green_tea::settings::Secret<String>,
    #[settings(default = "eu")]
    region: String,
}

/// A secret that changes is found changed (by a hash of its value, kept nowhere shown) and
/// never shown: not in the report, not in an error, not in the health.
#[tokio::test]
async fn a_changed_secret_reloads_and_is_never_shown() {
    let scratch = Scratch::new("secret");
    scratch.write("[vault]\ntoken = \"s3cr3t-one\"\n");
    let app = App::builder()
        .settings(scratch.sources())
        .provider(VaultSettings::provider())
        .build()
        .unwrap();
    let vault = app.get::<VaultSettings>("vaultSettings").await.unwrap();
    assert_eq!(
        (vault.token.expose().as_str(), vault.region.as_str()),
        ("s3cr3t-one", "eu")
    );

    scratch.write("[vault]\ntoken = \"s3cr3t-two\"\n");
    let report = app.reload().await.unwrap().expect("the secret changed");
    let text = report.to_string();
    assert!(
        text.contains("`vaultSettings.token` (VAULT_TOKEN): *** → *** ("),
        "{text}"
    );
    assert_eq!(
        app.get::<VaultSettings>("vaultSettings")
            .await
            .unwrap()
            .token
            .expose(),
        "s3cr3t-two"
    );

    // With a change that needs a restart: refused, and still nothing shown.
    scratch.write("[vault]\ntoken = \"s3cr3t-three\"\nregion = \"us\"\n");
    let restart = app.reload().await.unwrap_err();
    assert_eq!(restart.code(), Some("GT0109"));
    // A secret that is set empty: a problem, shown without its value.
    scratch.write("[vault]\ntoken = \"\"\n");
    let invalid = app.reload().await.unwrap_err();
    assert!(
        invalid
            .to_string()
            .contains("a secret that is set must have a value"),
        "{invalid}"
    );
    let health = serde_json::to_string(&app.health().await).unwrap();
    for shown in [
        text,
        restart.to_string(),
        invalid.to_string(),
        format!("{restart:?}"),
        health,
        app.explain_all().to_string(),
    ] {
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }
    app.close().await.unwrap();
}

/// A provider of `gated` (from billing's settings) whose every build waits for a permit:
/// a build the test holds, to race a reload against a close, a start or a caller that leaves.
struct Gated {
    building: Arc<Notify>,
    permits: Arc<tokio::sync::Semaphore>,
    disposed: Arc<Mutex<Vec<Duration>>>,
}

#[provider(provides = "gated", needs = ["billingSettings"], discover = false)]
impl Gated {
    async fn provide(&self, settings: &BillingSettings) -> Duration {
        self.building.notify_one();
        self.permits.acquire().await.expect("open").forget();
        settings.timeout
    }

    async fn dispose(&self, value: &Duration) {
        self.disposed.lock().unwrap().push(*value);
    }
}

struct GatedApp {
    app: App,
    building: Arc<Notify>,
    permits: Arc<tokio::sync::Semaphore>,
    disposed: Arc<Mutex<Vec<Duration>>>,
}

fn gated_app(scratch: &Scratch) -> GatedApp {
    let building = Arc::new(Notify::new());
    let permits = Arc::new(tokio::sync::Semaphore::new(0));
    let disposed = Arc::new(Mutex::new(Vec::new()));
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(Gated {
            building: Arc::clone(&building),
            permits: Arc::clone(&permits),
            disposed: Arc::clone(&disposed),
        })
        .route(
            Route::get("/gated", |request: RequestContext| async move {
                Ok::<_, green_tea::HttpError>(format!("{:?}", request.need::<Duration>(0)?))
            })
            .needs::<Duration>("gated"),
        )
        .build()
        .unwrap();
    GatedApp {
        app,
        building,
        permits,
        disposed,
    }
}

#[tokio::test]
async fn a_close_that_begins_during_a_reload_keeps_the_new_generation_out() {
    let scratch = Scratch::new("close-during");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let gated = gated_app(&scratch);
    gated.permits.add_permits(1);
    gated.app.start().await.unwrap();

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let building = gated.building.notified();
    let reload = tokio::spawn({
        let app = gated.app.clone();
        async move { app.reload().await }
    });
    building.await;
    let close = tokio::spawn({
        let app = gated.app.clone();
        async move { app.close().await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    gated.permits.add_permits(1);
    assert!(matches!(reload.await.unwrap(), Err(ReloadError::Closed)));
    close.await.unwrap().unwrap();
    // The new generation's value, then the old one's, each once.
    let mut disposed = gated.disposed.lock().unwrap().clone();
    disposed.sort();
    assert_eq!(disposed, [Duration::from_secs(2), Duration::from_secs(5)]);
}

#[tokio::test]
async fn a_reload_waits_for_a_start_in_progress_and_a_caller_that_leaves_does_not_stop_it() {
    let scratch = Scratch::new("start-during");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let gated = gated_app(&scratch);
    let building = gated.building.notified();
    let start = tokio::spawn({
        let app = gated.app.clone();
        async move { app.start().await }
    });
    building.await;
    // A reload asked while the start builds waits for it; its caller gives up at once.
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let gave_up = tokio::time::timeout(Duration::from_millis(10), gated.app.reload()).await;
    assert!(gave_up.is_err(), "it waits for the start");
    gated.permits.add_permits(2);
    start.await.unwrap().unwrap();
    // The reload goes on without its caller: the start's generation is replaced.
    wait_for_generation(&gated.app, 1).await;
    assert_eq!(get(&gated.app, "/gated").await, "5s");
    gated.app.close().await.unwrap();
    assert_eq!(
        *gated.disposed.lock().unwrap(),
        [Duration::from_secs(2), Duration::from_secs(5)]
    );
}

async fn wait_for_generation(app: &App, generation: u64) {
    for _ in 0..10_000 {
        if app.container().generation() == generation {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("generation {generation} never served");
}

#[tokio::test]
async fn two_reloads_at_once_apply_the_change_once() {
    let scratch = Scratch::new("twice");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let (one, two) = tokio::join!(app.reload(), app.reload());
    let applied = [one.unwrap(), two.unwrap()];
    assert_eq!(applied.iter().filter(|r| r.is_some()).count(), 1);
    assert_eq!(app.container().generation(), 1);
    assert_eq!(counts.billing_built.load(Ordering::SeqCst), 2);
    app.close().await.unwrap();
}

/// A value whose synchronous check says what billing's `down` says.
struct Flag(bool);
impl green_tea::health::HealthCheck for Flag {
    fn check(&self) -> Check {
        match self.0 {
            true => Check::down("flagged down"),
            false => Check::up(),
        }
    }
}

/// A synchronous health check of a value built anew counts as an async one does.
#[tokio::test]
async fn a_rebuilt_value_whose_synchronous_check_says_down_keeps_the_old() {
    let scratch = Scratch::new("sync-check");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(
            green_tea::ProviderFn::new("flag", |needs| async move {
                Ok::<_, BoxError>(Flag(needs.get::<BillingSettings>(0)?.down))
            })
            .needs::<BillingSettings>("billingSettings"),
        )
        .health_check::<Flag>("flag")
        .build()
        .unwrap();
    app.get::<Flag>("flag").await.unwrap();
    scratch.write("[billing]\ndown = true\n");
    let error = app.reload().await.unwrap_err();
    assert_eq!(error.code(), Some("GT0110"));
    assert!(
        error
            .to_string()
            .contains("`flag`: check down: flagged down"),
        "{error}"
    );
    assert!(!app.get::<Flag>("flag").await.unwrap().0);
    app.close().await.unwrap();
}

/// A rebuilt provider that runs past its build timeout fails the reload, as a failed build
/// does (on the paused clock).
#[tokio::test(start_paused = true)]
async fn a_rebuilt_provider_past_its_build_timeout_keeps_the_old() {
    let scratch = Scratch::new("timeout");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let gated = gated_app(&scratch);
    gated.permits.add_permits(1);
    gated.app.get::<Duration>("gated").await.unwrap();
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let error = gated.app.reload().await.unwrap_err();
    let ReloadError::Failed { error: failed, .. } = &error else {
        panic!("{error}")
    };
    assert!(
        matches!(
            failed,
            green_tea::ProvideError::Failed {
                cause: green_tea::error::FailureCause::TimedOut(_),
                ..
            }
        ),
        "{failed}"
    );
    assert_eq!(
        *gated.app.get::<Duration>("gated").await.unwrap(),
        Duration::from_secs(2)
    );
    gated.app.close().await.unwrap();
}

/// A worker that, stopped for a reload, returns an error on its way out is started again on
/// the new generation all the same (with `Restart::Never`): asked to end, it was not failing.
#[tokio::test]
async fn a_worker_that_errs_when_stopped_for_a_reload_still_restarts() {
    let scratch = Scratch::new("worker-err");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let seen = Arc::new(Mutex::new(Vec::<Duration>::new()));
    let worker = WorkerFn::new("grumpy", {
        let seen = Arc::clone(&seen);
        move |needs, shutdown| {
            let seen = Arc::clone(&seen);
            async move {
                seen.lock().unwrap().push(needs.get::<Billing>(0)?.timeout);
                shutdown.requested().await;
                Err::<(), BoxError>("interrupted".into())
            }
        }
    })
    .needs::<Billing>("billing")
    .restart(green_tea::workers::Restart::Never)
    .critical();
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .worker(worker)
        .build()
        .unwrap();
    app.start().await.unwrap();
    wait_for(|| seen.lock().unwrap().len() == 1).await;
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    app.reload().await.unwrap().expect("a field changed");
    wait_for(|| seen.lock().unwrap().len() == 2).await;
    let health = app.health().await;
    assert_eq!(
        health.workers[0].state.to_string(),
        "running",
        "{:?}",
        health.workers
    );
    assert!(health.ready, "{:?}", health.reasons);
    app.close().await.ok();
}

/// An app that reads its settings from the process's environment (no `.settings(..)`)
/// reloads from it: nothing changed.
#[tokio::test]
async fn an_app_on_the_environment_reloads_from_it() {
    let app = App::builder()
        .provider(VaultlessSettings::provider())
        .build()
        .unwrap();
    app.get::<VaultlessSettings>("vaultlessSettings")
        .await
        .unwrap();
    assert!(app.reload().await.unwrap().is_none());
    app.close().await.unwrap();
}

#[derive(Settings)]
#[settings(
    provides = "vaultlessSettings",
    prefix = "GREEN_TEA_RELOAD_TEST",
    discover = false
)]
struct VaultlessSettings {
    #[settings(default = "1", reload)]
    #[allow(dead_code)]
    level: u32,
}

/// `close()` while `start()` builds does not wait for the start (a start holds reloads off,
/// not the close): the build in flight is stopped at the dispose timeout, as before reloads
/// existed. On the paused clock: a close that waited for the start would take the drain's
/// minute.
#[tokio::test(start_paused = true)]
async fn a_close_during_a_start_does_not_wait_for_the_start() {
    let scratch = Scratch::new("close-start");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let building = Arc::new(Notify::new());
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(Gated {
            building: Arc::clone(&building),
            permits: Arc::new(tokio::sync::Semaphore::new(0)),
            disposed: Arc::default(),
        })
        .route(
            Route::get("/gated", |_: RequestContext| async { "never" }).needs::<Duration>("gated"),
        )
        .drain_timeout(Duration::from_secs(60))
        .dispose_timeout(Duration::from_secs(1))
        .build_timeout(Duration::from_secs(600))
        .build()
        .unwrap();
    let started = building.notified();
    let start = tokio::spawn({
        let app = app.clone();
        async move { app.start().await }
    });
    started.await;
    let began = tokio::time::Instant::now();
    app.close().await.ok();
    assert!(
        began.elapsed() < Duration::from_secs(60),
        "{:?}",
        began.elapsed()
    );
    assert!(start.await.unwrap().is_err());
}

/// A zero poll interval is taken as the shortest there is (10 ms), not as a loop that never
/// yields the clock: on the paused clock, the save is seen and reloaded.
#[tokio::test(start_paused = true)]
async fn a_zero_poll_interval_still_lets_time_pass() {
    let scratch = Scratch::new("zero-poll");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = App::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .reload_on_file_change(Duration::ZERO)
        .build()
        .unwrap();
    app.start().await.unwrap();
    app.get::<Billing>("billing").await.unwrap();
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    for _ in 0..1000 {
        if app.container().generation() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(app.container().generation(), 1);
    assert_eq!(
        app.get::<Billing>("billing").await.unwrap().timeout,
        Duration::from_secs(5)
    );
    app.close().await.unwrap();
}

// A container on its own: `Container::reload` returns the next generation; the caller uses it
// and closes the one it replaced.

/// Billing and the database in a container of their own, on `scratch`'s settings.
fn container(scratch: &Scratch, counts: &Arc<Counts>) -> Container {
    Container::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(counts)))
        .provider(DbProvider(Arc::clone(counts)))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_container_alone_reloads_and_the_replaced_one_disposes_only_what_it_alone_holds() {
    let scratch = Scratch::new("container");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let old = container(&scratch, &counts);
    old.build_all().await.unwrap();
    assert!(old.reload().await.unwrap().is_none(), "nothing changed");

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let (next, report) = old.reload().await.unwrap().expect("a field changed");
    assert_eq!(report.generation, 1);
    assert_eq!(next.generation(), 1);
    assert_eq!(report.rebuilt, ["BillingSettings", "BillingProvider"]);
    let billing = next.get::<Billing>("billing").await.unwrap();
    assert_eq!(
        (billing.timeout, billing.built),
        (Duration::from_secs(5), 2)
    );
    // The replaced generation works on for whoever holds it, with its own billing.
    let before = old.get::<Billing>("billing").await.unwrap();
    assert_eq!((before.timeout, before.built), (Duration::from_secs(2), 1));
    // The database is shared, not built again.
    let (db_next, db_old) = (next.get::<Db>("db").await, old.get::<Db>("db").await);
    assert!(Arc::ptr_eq(&db_next.unwrap(), &db_old.unwrap()));
    assert_eq!(counts.db_built.load(Ordering::SeqCst), 1);

    // Only the generation that serves reloads.
    match old.reload().await {
        Err(error @ ReloadError::Replaced { .. }) => {
            assert!(matches!(
                error,
                ReloadError::Replaced {
                    generation: 0,
                    serving: 1
                }
            ));
            assert!(error.to_string().contains("reload that one"), "{error}");
            assert_eq!(error.kind(), "replaced");
        }
        other => panic!("a replaced generation reloaded: {other:?}"),
    }

    // Closing the replaced generation disposes its billing, and nothing the two share.
    old.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 0);
    assert_eq!(next.get::<Db>("db").await.unwrap().0, 1);
    next.close().await.unwrap();
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
    assert_eq!(counts.db_disposed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_container_s_reload_refuses_as_an_app_s_does() {
    let scratch = Scratch::new("container-refused");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let container = container(&scratch, &counts);
    container.build_all().await.unwrap();

    // A field that needs a restart refuses the whole reload.
    scratch.write("[billing]\ntimeout = \"5s\"\nurl = \"http://127.0.0.1:3002\"\n");
    let refused = container.reload().await.unwrap_err();
    assert_eq!(refused.code(), Some("GT0109"), "{refused}");
    assert_eq!(refused.changes().len(), 2, "{refused}");
    // A build that fails disposes what the new generation built, and nothing else.
    scratch.write("[billing]\ntimeout = \"5s\"\nbroken = true\n");
    let failed = container.reload().await.unwrap_err();
    assert!(matches!(failed, ReloadError::Failed { .. }), "{failed}");
    assert!(failed.to_string().contains("handshake"), "{failed}");
    // Problems in the file, every one at once.
    scratch.write("[billing]\ntimeout = \"soon\"\ndown = \"maybe\"\n");
    match container.reload().await {
        Err(ReloadError::Invalid(error)) => assert_eq!(error.problems().len(), 2, "{error}"),
        other => panic!("a bad file reloaded: {other:?}"),
    }
    // Through all of it, this generation serves on, untouched.
    assert_eq!(container.generation(), 0);
    let billing = container.get::<Billing>("billing").await.unwrap();
    assert_eq!(
        (billing.timeout, billing.built),
        (Duration::from_secs(2), 1)
    );
    assert!(counts.billing_disposed.lock().unwrap().is_empty());

    container.close().await.unwrap();
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    assert!(matches!(container.reload().await, Err(ReloadError::Closed)));
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1]);
}

#[tokio::test]
async fn an_app_s_container_is_reloaded_by_the_app() {
    let scratch = Scratch::new("container-of-app");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let app = app(&scratch, &counts, None);
    app.start().await.unwrap();
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let refused = app.container().reload().await.unwrap_err();
    assert!(matches!(refused, ReloadError::OfAnApp), "{refused}");
    assert!(refused.to_string().contains("App::reload"), "{refused}");
    // The app's own reload is untouched by it.
    assert_eq!(app.reload().await.unwrap().unwrap().generation, 1);
    assert_eq!(get(&app, "/charge").await, "5s #2 db #1");
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_container_s_worker_moves_to_the_new_generation_and_the_old_close_waits_for_its_run() {
    let scratch = Scratch::new("container-worker");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let counts = Arc::new(Counts::default());
    let seen = Arc::new(Mutex::new(Vec::<Duration>::new()));
    let ended = Arc::new(AtomicUsize::new(0));
    // Lets a run that was asked to stop end (one permit a run).
    let release = Arc::new(tokio::sync::Semaphore::new(0));
    let worker = WorkerFn::new("settler", {
        let (seen, ended, release) = (Arc::clone(&seen), Arc::clone(&ended), Arc::clone(&release));
        move |needs, shutdown| {
            let (seen, ended, release) =
                (Arc::clone(&seen), Arc::clone(&ended), Arc::clone(&release));
            async move {
                let billing = needs.get::<Billing>(0)?;
                seen.lock().unwrap().push(billing.timeout);
                shutdown.requested().await;
                // It still uses its billing until the test lets it end.
                release.acquire().await.expect("open").forget();
                ended.fetch_add(1, Ordering::SeqCst);
                drop(billing);
                Ok(())
            }
        }
    })
    .needs::<Billing>("billing");
    let old = Container::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .provider(DbProvider(Arc::clone(&counts)))
        .worker(worker)
        .build()
        .unwrap();
    old.start_workers().await.unwrap();
    wait_for(|| seen.lock().unwrap().len() == 1).await;

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let (next, report) = old.reload().await.unwrap().expect("a field changed");
    assert_eq!(report.workers, ["settler"]);
    // The replaced generation's close waits for the worker's run on it, and leaves the
    // worker running on the new one.
    let closing = tokio::spawn({
        let old = old.clone();
        async move { old.close().await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(
        !closing.is_finished(),
        "the close waits for the run on the old billing"
    );
    assert!(counts.billing_disposed.lock().unwrap().is_empty());
    release.add_permits(1);
    closing.await.unwrap().unwrap();
    assert_eq!(ended.load(Ordering::SeqCst), 1);
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1]);
    wait_for(|| seen.lock().unwrap().len() == 2).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [Duration::from_secs(2), Duration::from_secs(5)]
    );
    let health = next.health();
    assert_eq!(health.workers[0].state.to_string(), "running", "{health:?}");

    release.add_permits(1);
    next.close().await.unwrap();
    assert_eq!(ended.load(Ordering::SeqCst), 2);
    assert_eq!(*counts.billing_disposed.lock().unwrap(), [1, 2]);
}

#[tokio::test]
async fn a_container_s_reload_whose_caller_leaves_disposes_what_it_built() {
    let scratch = Scratch::new("container-left");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let (building, permits) = (
        Arc::new(Notify::new()),
        Arc::new(tokio::sync::Semaphore::new(1)),
    );
    let disposed = Arc::new(Mutex::new(Vec::new()));
    let container = Container::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(Gated {
            building: Arc::clone(&building),
            permits: Arc::clone(&permits),
            disposed: Arc::clone(&disposed),
        })
        .build()
        .unwrap();
    container.build_all().await.unwrap();
    // The first build's notice, kept for a waiter that never came: taken.
    building.notified().await;

    // The caller gives up while the new generation builds.
    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let started = building.notified();
    let reload = tokio::spawn({
        let container = container.clone();
        async move {
            container
                .reload()
                .await
                .map(|r| r.map(|(next, _)| next.generation()))
        }
    });
    started.await;
    reload.abort();
    assert!(reload.await.unwrap_err().is_cancelled());
    permits.add_permits(1);
    // What it built is disposed; the generation that served serves on.
    wait_for(|| disposed.lock().unwrap().len() == 1).await;
    assert_eq!(*disposed.lock().unwrap(), [Duration::from_secs(5)]);
    assert_eq!(container.generation(), 0);
    assert_eq!(
        *container.get::<Duration>("gated").await.unwrap(),
        Duration::from_secs(2)
    );
    // The next reload is not held up by the one that was left.
    permits.add_permits(1);
    let (next, _) = container.reload().await.unwrap().expect("a field changed");
    assert_eq!(
        *next.get::<Duration>("gated").await.unwrap(),
        Duration::from_secs(5)
    );
    container.close().await.unwrap();
    next.close().await.unwrap();
    assert_eq!(
        *disposed.lock().unwrap(),
        [
            Duration::from_secs(5),
            Duration::from_secs(2),
            Duration::from_secs(5)
        ]
    );
}

/// A close of the generation that serves waits for a reload in progress, which then keeps
/// its generation out: the workers are stopped (not left to a generation nobody holds), and
/// every value is disposed once.
#[tokio::test]
async fn a_container_closed_while_its_reload_builds_keeps_the_new_generation_out() {
    let scratch = Scratch::new("container-closed-during");
    scratch.write("[billing]\ntimeout = \"2s\"\n");
    let (building, permits) = (
        Arc::new(Notify::new()),
        Arc::new(tokio::sync::Semaphore::new(1)),
    );
    let disposed = Arc::new(Mutex::new(Vec::new()));
    let runs = Arc::new(Mutex::new(Vec::<(Duration, &'static str)>::new()));
    let worker = WorkerFn::new("poller", {
        let runs = Arc::clone(&runs);
        move |needs, shutdown| {
            let runs = Arc::clone(&runs);
            async move {
                let every = *needs.get::<Duration>(0)?;
                runs.lock().unwrap().push((every, "began"));
                shutdown.requested().await;
                runs.lock().unwrap().push((every, "ended"));
                Ok(())
            }
        }
    })
    .needs::<Duration>("gated");
    let container = Container::builder()
        .settings(scratch.sources())
        .provider(BillingSettings::provider())
        .provider(Gated {
            building: Arc::clone(&building),
            permits: Arc::clone(&permits),
            disposed: Arc::clone(&disposed),
        })
        .worker(worker)
        .build()
        .unwrap();
    container.start_workers().await.unwrap();
    building.notified().await;
    wait_for(|| runs.lock().unwrap().len() == 1).await;

    scratch.write("[billing]\ntimeout = \"5s\"\n");
    let started = building.notified();
    let reload = tokio::spawn({
        let container = container.clone();
        async move { container.reload().await.map(|r| r.is_some()) }
    });
    started.await;
    let close = tokio::spawn({
        let container = container.clone();
        async move { container.close().await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    // Waiting for the reload, which waits for its build: nothing disposed yet.
    assert!(
        !close.is_finished(),
        "the close waits for the reload in progress"
    );
    assert!(disposed.lock().unwrap().is_empty());
    permits.add_permits(1);
    assert!(matches!(reload.await.unwrap(), Err(ReloadError::Closed)));
    close.await.unwrap().unwrap();
    // The worker ran on the generation that served, and was stopped by its close.
    assert_eq!(
        *runs.lock().unwrap(),
        [
            (Duration::from_secs(2), "began"),
            (Duration::from_secs(2), "ended")
        ]
    );
    // What the reload built is disposed too, each value once.
    wait_for(|| disposed.lock().unwrap().len() == 2).await;
    let mut all = disposed.lock().unwrap().clone();
    all.sort();
    assert_eq!(all, [Duration::from_secs(2), Duration::from_secs(5)]);
}

#[derive(Settings)]
#[settings(provides = "featureSettings", prefix = "FEATURES", discover = false)]
struct FeatureSettings {
    #[settings(default = "false")]
    audit: bool,
}

/// Read only when the audit is on (a switch).
#[derive(Settings)]
#[settings(provides = "auditSettings", prefix = "AUDIT", discover = false)]
struct AuditSettings {
    #[settings(default = "10")]
    #[allow(dead_code)]
    batch: u32,
}

/// As at `build()`: a settings type that is off today is not needed, so neither a problem in
/// it nor a change of it stops or makes a reload (its variables stay known under `strict()`).
#[tokio::test]
async fn a_settings_type_that_is_off_today_neither_refuses_nor_makes_a_reload() {
    let scratch = Scratch::new("off-settings");
    scratch.write("[billing]\ntimeout = \"2s\"\n[audit]\nbatch = 10\n");
    let counts = Arc::new(Counts::default());
    let app = App::builder()
        .settings(scratch.sources())
        .provider(FeatureSettings::provider())
        .switch(Switch::new("auditOn", |f: &FeatureSettings| f.audit).reads("audit"))
        .when("auditOn", |on| on.provider(AuditSettings::provider()))
        .provider(BillingSettings::provider())
        .provider(BillingProvider(Arc::clone(&counts)))
        .build()
        .unwrap();
    app.start().await.unwrap();

    // A change of the audit's settings alone: nothing that serves reads them.
    scratch.write("[billing]\ntimeout = \"2s\"\n[audit]\nbatch = 20\n");
    assert!(app.reload().await.unwrap().is_none());
    // A value the audit's settings refuse, beside a change that reloads: the reload goes on.
    scratch.write("[billing]\ntimeout = \"5s\"\n[audit]\nbatch = \"many\"\n");
    let report = app
        .reload()
        .await
        .unwrap()
        .expect("billing's timeout changed");
    assert_eq!(report.changes.len(), 1, "{report}");
    assert_eq!(report.changes[0].field, "billingSettings.timeout");
    assert_eq!(
        app.get::<Billing>("billing").await.unwrap().timeout,
        Duration::from_secs(5)
    );
    // A problem in what is on still refuses it.
    scratch.write("[billing]\ntimeout = \"soon\"\n[audit]\nbatch = \"many\"\n");
    match app.reload().await {
        Err(ReloadError::Invalid(error)) => {
            assert_eq!(error.problems().len(), 1, "{error}");
            assert!(error.to_string().contains("timeout"), "{error}");
        }
        other => panic!("a bad timeout reloaded: {other:?}"),
    }
    app.close().await.unwrap();
}
