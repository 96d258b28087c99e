//! Faults through the `App`: a provider failing midway through `start()`, a provider panicking
//! while a request builds it, and disposes that fail, panic, hang or are merely slow, after
//! routes built the providers by serving requests.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use green_tea::error::{ClosePart, FailureCause};
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::steps::StepFn;
use green_tea::test::TestClient;
use green_tea::{App, Error, HttpError};
use green_tea::{BoxError, Container, Descriptor, Needs, ProvideError, Provided, Provider};
use serde_json::json;
use support::http::{Server, get, http1_client, within};
use support::{Log, OnDispose, OnProvide, Probe, Service};

/// A route at `path` that needs the services `keys` and answers with their names.
fn route(path: &str, keys: &[&'static str]) -> Route {
    let count = keys.len();
    keys.iter().fold(
        Route::get(path, move |request: RequestContext| async move {
            let mut names = Vec::new();
            for i in 0..count {
                let service = request.need::<Service>(i)?;
                if service.is_disposed() {
                    return Err(HttpError::new(
                        500,
                        format!("{} was disposed", service.name),
                    ));
                }
                names.push(service.name.clone());
            }
            Ok::<_, HttpError>(names.join(","))
        }),
        |route, key| route.needs::<Service>(*key),
    )
}

/// Build counts by provider name.
struct Builds(Vec<(&'static str, Arc<AtomicUsize>)>);

impl Builds {
    fn of(probes: &[Probe]) -> Builds {
        Builds(probes.iter().map(|p| (p.name, p.counter())).collect())
    }

    fn counts(&self) -> Vec<(&'static str, usize)> {
        self.0
            .iter()
            .map(|(n, c)| (*n, c.load(Ordering::SeqCst)))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// A provider failing midway through start().

/// `base <- mid <- bad <- top <- late` (late needs top ...): `bad` fails its first build.
/// `GET /top` needs `top`, `GET /late` needs `late`, `GET /mid` needs `mid`; `unused` is
/// reached by no route.
fn failing_chain(log: &Log) -> (App, Builds) {
    let probes = vec![
        Probe::new("base", &[], log),
        Probe::new("mid", &["base"], log),
        Probe::new("bad", &["mid"], log).on_provide(OnProvide::FailTimes(1.into())),
        Probe::new("top", &["bad"], log),
        Probe::new("late", &["top"], log),
        Probe::new("unused", &["base"], log),
    ];
    let builds = Builds::of(&probes);
    let app = probes
        .into_iter()
        .fold(App::builder(), |b, p| b.provider(p))
        .route(route("/top", &["top"]))
        .route(route("/late", &["late"]))
        .route(route("/mid", &["mid"]))
        .build()
        .expect("a valid graph");
    (app, builds)
}

#[tokio::test]
async fn a_provider_failing_midway_through_app_start_undoes_what_was_built() {
    let log = Log::default();
    let (app, builds) = failing_chain(&log);

    let error = within("start()", app.start()).await.unwrap_err();
    match &error {
        ProvideError::Failed {
            provider,
            cause: FailureCause::Error(e),
            ..
        } => assert_eq!(
            (provider.as_str(), e.to_string()),
            ("bad", "bad is down".to_owned())
        ),
        other => panic!("expected `bad` to fail, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("provider `bad` failed: bad is down"),
        "{error}"
    );
    assert_eq!(
        builds.counts(),
        [
            ("base", 1),
            ("mid", 1),
            ("bad", 1),
            ("top", 0),
            ("late", 0),
            ("unused", 0)
        ],
        "nothing after the failure was built"
    );
    assert_eq!(
        log.names("dispose"),
        ["mid", "base"],
        "what was built, in reverse"
    );

    // The app's providers are closed: requests are turned away, nothing is rebuilt.
    let client = TestClient::new(app.clone());
    let after = client.get("/mid").send().await;
    assert_eq!(after.status(), 503, "{}", after.text());
    assert_eq!(
        after.json::<serde_json::Value>(),
        json!({ "error": "the app is shutting down" })
    );
    within("close()", app.close())
        .await
        .expect("nothing more to dispose");
    assert_eq!(log.names("dispose"), ["mid", "base"], "disposed once");
    assert_eq!(builds.counts()[0], ("base", 1));
}

#[tokio::test]
async fn a_start_failure_names_the_chain_that_needed_the_failed_provider() {
    let log = Log::default();
    let (app, _) = failing_chain(&log);
    let from_start = within("start()", app.start()).await.unwrap_err();

    // The same failure through `get` names its chain.
    let log = Log::default();
    let (app, _) = failing_chain(&log);
    let from_get = app.get::<Service>("late").await.unwrap_err();
    assert_eq!(
        from_get.to_string(),
        "provider `bad` failed: bad is down, needed by `top`, needed by `late`"
    );
    match &from_start {
        ProvideError::Failed { needed_by, .. } => assert!(
            needed_by.first().is_some_and(|n| n == "top"),
            "start()'s error does not say who needed `bad`: {from_start}"
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_failing_beside_one_still_building_stops_it_and_disposes_what_was_built() {
    const ROUNDS: usize = 30;
    for round in 0..ROUNDS {
        let log = Log::default();
        // `left` and `right` build concurrently once `base` is built; `right` fails while
        // `left` is still building (a minute's work): `left` is stopped, not awaited, and
        // only `base` was built to dispose.
        let probes = vec![
            Probe::new("base", &[], &log),
            Probe::new("left", &["base"], &log)
                .on_provide(OnProvide::Sleep(Duration::from_secs(60))),
            Probe::new("right", &["base"], &log).on_provide(OnProvide::FailTimes(1.into())),
            Probe::new("top", &["left", "right"], &log),
        ];
        let builds = Builds::of(&probes);
        let container = probes
            .into_iter()
            .fold(Container::builder(), |b, p| b.provider(p))
            .build()
            .unwrap();
        let error = within("start()", container.build_all()).await.unwrap_err();
        assert!(
            matches!(&error, ProvideError::Failed { provider, .. } if provider == "right"),
            "round {round}: {error}"
        );
        // `left` was started, or stopped before it began: never twice, never finished.
        let counts = builds.counts();
        assert!(counts[1].1 <= 1, "round {round}: {counts:?}");
        assert_eq!(
            [counts[0], counts[2], counts[3]],
            [("base", 1), ("right", 1), ("top", 0)],
            "round {round}"
        );
        assert_eq!(log.names("dispose"), ["base"], "round {round}");
        assert!(container.is_closed());
    }
}

// ---------------------------------------------------------------------------------------------
// A provider panicking while a request builds it.

/// Provides `key` (a [`Service`]); its first build panics, the others succeed.
struct PanicsOnce {
    key: &'static str,
    builds: Arc<AtomicUsize>,
}

impl PanicsOnce {
    fn new(key: &'static str) -> (PanicsOnce, Arc<AtomicUsize>) {
        let builds = Arc::new(AtomicUsize::new(0));
        let provider = PanicsOnce {
            key,
            builds: Arc::clone(&builds),
        };
        (provider, builds)
    }
}

impl Provider for PanicsOnce {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new(self.key).provides::<Service>(self.key)
    }

    async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
        if self.builds.fetch_add(1, Ordering::SeqCst) == 0 {
            panic!("{} panicked in provide", self.key);
        }
        Ok(Provided::one(Service {
            name: self.key.to_owned(),
            disposed: Default::default(),
        }))
    }
}

#[tokio::test]
async fn a_provider_panicking_in_a_request_is_a_500_and_the_next_request_rebuilds_it() {
    support::quiet_expected_panics();
    let log = Log::default();
    let (db, db_builds) = PanicsOnce::new("db");
    let (audit, audit_builds) = PanicsOnce::new("audit");
    let app = App::builder()
        .provider(db)
        .provider(audit)
        .provider(Probe::new("repo", &["db"], &log))
        .step(
            StepFn::new("auditor", |_, needs| {
                Ok(needs.get::<Service>(0).unwrap().name.clone())
            })
            .needs::<Service>("audit"),
        )
        .route(route("/repo", &["repo"]))
        .route(
            Route::get("/audited", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
            })
            .needs::<String>("auditor"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());

    // Through a dependency of the route's provider, and through a step's need.
    for (path, builds, body) in [
        ("/repo", &db_builds, "repo"),
        ("/audited", &audit_builds, "audit"),
    ] {
        let first = client.get(path).send().await;
        assert_eq!(first.status(), 500, "GET {path}: {}", first.text());
        assert_eq!(
            first.json::<serde_json::Value>(),
            json!({ "error": "internal server error" }),
            "details stay in the log"
        );
        assert_eq!(builds.load(Ordering::SeqCst), 1);

        for _ in 0..3 {
            let next = client.get(path).send().await;
            assert_eq!(
                (next.status().as_u16(), next.text()),
                (200, body.to_owned()),
                "GET {path}"
            );
        }
        assert_eq!(
            builds.load(Ordering::SeqCst),
            2,
            "GET {path}: rebuilt once, then kept"
        );
    }
    assert_eq!(
        log.names("provide"),
        ["repo"],
        "repo was built once, after db was"
    );

    let db = app.get::<Service>("db").await;
    assert!(db.is_ok(), "the slot is usable: {db:?}");
    app.close().await.unwrap();
    assert_eq!(log.names("dispose"), ["repo"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_during_a_panicking_build_get_500_or_200_and_the_slot_recovers() {
    const REQUESTS: usize = 64;
    const ROUNDS: usize = 20;
    support::quiet_expected_panics();
    for round in 0..ROUNDS {
        let (db, builds) = PanicsOnce::new("db");
        let app = App::builder()
            .provider(db)
            .route(route("/db", &["db"]))
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        let barrier = Arc::new(tokio::sync::Barrier::new(REQUESTS));
        let requests: Vec<_> = (0..REQUESTS)
            .map(|_| {
                let (client, barrier) = (client.clone(), Arc::clone(&barrier));
                tokio::spawn(async move {
                    barrier.wait().await;
                    client.get("/db").send().await.status().as_u16()
                })
            })
            .collect();
        let mut statuses = Vec::new();
        for request in requests {
            statuses.push(within("a request", request).await.unwrap());
        }
        assert!(
            statuses.iter().all(|s| *s == 200 || *s == 500),
            "round {round}: {statuses:?}"
        );
        assert!(
            statuses.contains(&500),
            "round {round}: the first build's waiters got 500"
        );
        // Those who came after the panic started one more build, which succeeded.
        let rebuilt = usize::from(statuses.contains(&200));
        assert_eq!(builds.load(Ordering::SeqCst), 1 + rebuilt, "round {round}");

        let next = client.get("/db").send().await;
        assert_eq!(
            (next.status().as_u16(), next.text()),
            (200, "db".to_owned())
        );
        assert_eq!(
            builds.load(Ordering::SeqCst),
            2,
            "round {round}: at most one rebuild"
        );
        app.close().await.unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Faults in close.

const DISPOSE_TIMEOUT: Duration = Duration::from_millis(200);

/// Dependencies first: `base <- ok1 <- failing <- ok2 <- panicking <- ok3 <- hanging <- slow
/// <- top` (each needs the one before). `slow` takes a tenth of the dispose timeout. `GET /top`
/// builds them all, `GET /ok1` only the first two; `never` is reached only by `GET /never`,
/// which nobody requests.
fn faulty_app(log: &Log) -> App {
    let names = [
        "base",
        "ok1",
        "failing",
        "ok2",
        "panicking",
        "ok3",
        "hanging",
        "slow",
        "top",
    ];
    let behaviour = |name: &str| match name {
        "failing" => OnDispose::Fail,
        "panicking" => OnDispose::Panic,
        "hanging" => OnDispose::Hang,
        "slow" => OnDispose::Sleep(DISPOSE_TIMEOUT / 10),
        _ => OnDispose::Succeed,
    };
    let mut builder = App::builder().dispose_timeout(DISPOSE_TIMEOUT);
    for (i, name) in names.iter().enumerate() {
        let needs: &[&'static str] = if i == 0 { &[] } else { &names[i - 1..i] };
        builder = builder.provider(Probe::new(name, needs, log).on_dispose(behaviour(name)));
    }
    builder
        .provider(Probe::new("never", &["base"], log))
        .route(route("/top", &["top"]))
        .route(route("/ok1", &["ok1"]))
        .route(route("/never", &["never"]))
        .build()
        .expect("a valid graph")
}

/// What every close of the faulty app must report: exactly the three bad disposes, dependents
/// first.
fn assert_the_three_failures(failures: &[green_tea::error::CloseFailure]) {
    let failed: Vec<(&str, &FailureCause)> = failures
        .iter()
        .map(|f| match &f.part {
            ClosePart::Provider { name, keys } => {
                assert_eq!(keys, &[green_tea::Key::from(name.clone())]);
                (name.as_str(), &f.cause)
            }
            other => panic!("only providers fail here, not {other}"),
        })
        .collect();
    assert_eq!(failed.len(), 3, "{failed:?}");
    assert!(
        matches!(failed[0], ("hanging", FailureCause::TimedOut(t)) if *t == DISPOSE_TIMEOUT),
        "{failed:?}"
    );
    assert!(
        matches!(failed[1], ("panicking", FailureCause::Panicked(m)) if m == "panicking panicked in dispose"),
        "{failed:?}"
    );
    assert!(
        matches!(failed[2], ("failing", FailureCause::Error(e)) if e.to_string() == "failing failed to dispose"),
        "{failed:?}"
    );
}

const DISPOSED_IN_ORDER: [&str; 9] = [
    "top",
    "slow",
    "hanging",
    "ok3",
    "panicking",
    "ok2",
    "failing",
    "ok1",
    "base",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_panicking_hanging_and_slow_disposes_after_requests_stop_nothing() {
    support::quiet_expected_panics();
    let log = Log::default();
    let app = faulty_app(&log);
    let client = TestClient::new(app.clone());
    let top = client.get("/top").send().await;
    assert_eq!((top.status().as_u16(), top.text()), (200, "top".to_owned()));
    assert_eq!(client.get("/ok1").send().await.text(), "ok1");
    // Handles on every built value, to see which were disposed.
    let mut values = Vec::new();
    for name in DISPOSED_IN_ORDER {
        values.push(app.get::<Service>(name).await.unwrap());
    }

    let error = within("close()", app.close()).await.unwrap_err();
    assert_the_three_failures(&error.failures);
    assert_eq!(
        log.names("dispose"),
        DISPOSED_IN_ORDER,
        "each once, dependents first"
    );
    for value in &values {
        let failed = ["hanging", "panicking", "failing"].contains(&value.name.as_str());
        assert_eq!(value.is_disposed(), !failed, "{}", value.name);
    }
    assert!(!log.names("provide").contains(&"never".to_owned()));

    // Again, and concurrently: the same outcome, nothing disposed twice.
    let text = error.to_string();
    assert!(text.starts_with("3 part(s) failed to close:"), "{text}");
    let closes: Vec<_> = (0..8)
        .map(|_| {
            let app = app.clone();
            tokio::spawn(async move { app.close().await })
        })
        .collect();
    for close in closes {
        let again = within("close() again", close).await.unwrap().unwrap_err();
        assert_eq!(again.to_string(), text);
    }
    assert_eq!(app.close().await.unwrap_err().to_string(), text);
    assert_eq!(log.names("dispose"), DISPOSED_IN_ORDER, "still each once");
    assert_eq!(client.get("/top").send().await.status(), 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_until_reports_the_three_failed_disposes_after_serving() {
    support::quiet_expected_panics();
    let log = Log::default();
    let app = faulty_app(&log);
    let server = Server::start(&app).await;
    let client = http1_client();
    let top = get(&client, &server.url("/top")).await.unwrap();
    assert_eq!((top.status.as_u16(), top.text()), (200, "top".to_owned()));

    match server.stop().await {
        Err(Error::Close(error)) => assert_the_three_failures(&error.failures),
        other => panic!("expected the three failed disposes, got {other:?}"),
    }
    assert_eq!(log.names("dispose"), DISPOSED_IN_ORDER);
    let again = within("close() after serve", app.close())
        .await
        .unwrap_err();
    assert_the_three_failures(&again.failures);
    assert_eq!(log.names("dispose"), DISPOSED_IN_ORDER, "disposed once");
}
