//! The orders example end to end over loopback, against a real fake billing service.

#[allow(dead_code, clippy::module_inception)] // the example, under its own name
#[path = "../../examples/orders.rs"]
mod orders;
use crate::support;

use std::time::Duration;

use bytes::Bytes;
use green_tea::App;
use green_tea::settings::Sources;
use green_tea_recipes::billing::fake::{FakeBilling, Mode};
use green_tea_recipes::billing::{BillingClient, BillingSettings, BreakerSettings, GuardedBilling};
use green_tea_recipes::circuit_breaker::{BreakerState, CircuitBreaker, Config, ManualClock};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use support::logs::Logs;

type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

struct Running {
    app: App,
    base: String,
    fake: FakeBilling,
    clock: ManualClock,
    client: HttpClient,
    server: tokio::task::JoinHandle<Result<(), green_tea::Error>>,
}

async fn start() -> Running {
    let fake = FakeBilling::start(
        tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
        Mode::Up,
    )
    .await
    .unwrap();
    // The settings from a map, never the process's environment; the breaker of its own, over
    // a clock the test moves.
    let sources = Sources::from_env_map([("BILLING_URL", fake.url()), ("BILLING_TIMEOUT", "5s")]);
    let clock = ManualClock::new();
    let breaker = CircuitBreaker::new(
        Config::new(3, Duration::from_secs(30))
            .clock(clock.clone())
            .name("billing"),
    );
    let app = orders::app(sources.strict(), breaker).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn({
        let app = app.clone();
        async move { app.serve_until(listener, std::future::pending()).await }
    });
    Running {
        app,
        base,
        fake,
        clock,
        client: Client::builder(TokioExecutor::new()).build_http(),
        server,
    }
}

impl Running {
    async fn order(&self, user: &str) -> (u16, Option<String>, String) {
        let body = format!(r#"{{"userId":"{user}","amount":5}}"#);
        let request = http::Request::post(format!("{}/orders", self.base))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        let response = self.client.request(request).await.unwrap();
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_owned());
        let text = String::from_utf8(
            response
                .into_body()
                .collect()
                .await
                .unwrap()
                .to_bytes()
                .to_vec(),
        )
        .unwrap();
        (status, retry_after, text)
    }

    async fn breaker_state(&self) -> BreakerState {
        self.app
            .get::<GuardedBilling>("billing")
            .await
            .unwrap()
            .breaker()
            .state()
    }
}

#[tokio::test]
async fn the_breaker_opens_fails_fast_and_recovers_through_one_trial() {
    let running = start().await;
    assert_eq!(
        running.order("u1").await,
        (201, None, r#"{"ok":true}"#.to_owned())
    );
    assert_eq!(running.fake.hits(), 1);

    running.fake.set_mode(Mode::Down);
    for _ in 0..3 {
        // Billing was called and failed: the same outage to the client, but no Retry-After,
        // since the breaker has not opened (yet).
        let (status, retry_after, body) = running.order("u1").await;
        assert_eq!(
            (status, retry_after, body.as_str()),
            (503, None, r#"{"error":"billing is unavailable"}"#)
        );
    }
    assert_eq!(running.fake.hits(), 4);
    assert_eq!(running.breaker_state().await, BreakerState::Open);

    for _ in 0..5 {
        let (status, retry_after, body) = running.order("u1").await;
        assert_eq!(
            (status, body.as_str()),
            (503, r#"{"error":"billing is unavailable"}"#)
        );
        assert_eq!(retry_after.as_deref(), Some("30"));
    }
    assert_eq!(running.fake.hits(), 4, "open: billing was not contacted");

    running.fake.set_mode(Mode::Up);
    running.clock.advance(Duration::from_secs(30)); // the window elapsed
    assert_eq!(running.order("u1").await.0, 201, "the trial");
    assert_eq!(running.fake.hits(), 5, "exactly one trial reached billing");
    assert_eq!(running.breaker_state().await, BreakerState::Closed);
    assert_eq!(running.order("u2").await.0, 201);

    running.app.close().await.unwrap();
    running.server.await.unwrap().unwrap();
}

#[tokio::test]
async fn an_upstream_404_does_not_trip_the_breaker() {
    let running = start().await;
    for _ in 0..5 {
        let (status, _, body) = running.order("unknown").await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("billing answered 404"), "{body}");
    }
    assert_eq!(running.fake.hits(), 5);
    assert_eq!(running.breaker_state().await, BreakerState::Closed);
    assert_eq!(running.order("u1").await.0, 201);
    running.app.close().await.unwrap();
}

#[tokio::test]
async fn billing_reads_its_settings_from_the_sources_given() {
    let running = start().await;
    let settings = running
        .app
        .get::<BillingSettings>("billingSettings")
        .await
        .unwrap();
    let expected = BillingSettings {
        url: Some(running.fake.url().to_owned()),
        timeout: Duration::from_secs(5),
        breaker: BreakerSettings {
            threshold: 3,
            reset: Duration::from_secs(30),
        },
    };
    assert_eq!(*settings, expected);
    let explain = running
        .app
        .container()
        .explain_key("billingSettings")
        .unwrap()
        .to_string();
    for row in [
        "timeout = 5s (env BILLING_TIMEOUT; reloadable)",
        "breaker.threshold = 3 (default; reloadable)",
        "breaker.reset = 30s (default; reloadable)",
    ] {
        assert!(explain.contains(row), "{row} in\n{explain}");
    }
    running.app.close().await.unwrap();
}

#[tokio::test]
async fn health_never_builds_billing() {
    let running = start().await;
    let response = running
        .client
        .request(
            http::Request::get(format!("{}/orders/health", running.base))
                .body(Full::default())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let explain = running.app.explain("/orders").unwrap();
    assert!(
        explain.routes[0].providers.nodes.iter().all(|n| !n.built),
        "{explain}"
    );
    assert_eq!(running.fake.hits(), 0);
    running.app.close().await.unwrap();
}

#[tokio::test]
async fn close_disposes_the_client_and_logs_the_order() {
    let (out, _guard) = Logs::start();

    let running = start().await;
    assert_eq!(running.order("u1").await.0, 201);
    let client = running
        .app
        .get::<BillingClient>("billingApi")
        .await
        .unwrap();
    running.app.close().await.unwrap();
    running.server.await.unwrap().unwrap();
    assert!(client.is_closed());

    let logs = out.text();
    let disposed: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("disposed"))
        .map(|l| {
            if l.contains("provider=BillingApi") {
                "billingApi"
            } else if l.contains("provider=BillingSettings") {
                "billingSettings"
            } else if l.contains("provider=Billing") {
                "billing"
            } else {
                "?"
            }
        })
        .collect();
    assert_eq!(
        disposed,
        ["billing", "billingApi", "billingSettings"],
        "{logs}"
    );
    assert!(logs.contains("billing client closed"), "{logs}");
}

/// Issue 41, point 22: where billing's breaker is shared (`BREAKER_REDIS_URL`, `BREAKER_NAME`,
/// `BREAKER_REFRESH`) is settings like billing's own: in the one report, the URL a secret, and
/// as strict: a mistyped variable and a bad value stop `build()` in the same report.
#[test]
fn the_breakers_sharing_is_read_as_settings_in_the_one_report_and_strictly() {
    let breaker = || CircuitBreaker::new(Config::new(3, Duration::from_secs(30)).name("billing"));
    let sources = Sources::from_env_map([
        ("BILLING_URL", "http://127.0.0.1:3001"),
        ("BREAKER_REDIS_URL", "redis://:s3cr3t@127.0.0.1:6379/"),
        ("BREAKER_NAME", "billing-eu"),
        ("BREAKER_REFRESH", "50ms"),
    ]);
    let app = orders::app(sources.strict(), breaker()).unwrap();
    let report = app.settings_report().to_string();
    for row in [
        "sharingSettings",
        "redis_url = *** (env BREAKER_REDIS_URL)",
        "name = billing-eu (env BREAKER_NAME)",
        "refresh = 50ms (env BREAKER_REFRESH)",
    ] {
        assert!(report.contains(row), "{row} in\n{report}");
    }
    assert!(!report.contains("s3cr3t"), "{report}");

    let defaults = orders::app(
        Sources::from_env_map([("BILLING_URL", "http://127.0.0.1:3001")]).strict(),
        breaker(),
    )
    .unwrap()
    .settings_report()
    .to_string();
    for row in ["name = billing (default)", "refresh = 250ms (default)"] {
        assert!(defaults.contains(row), "{row} in\n{defaults}");
    }
    assert!(!defaults.contains("redis_url = ***"), "unset: {defaults}");

    let refused = orders::app(
        Sources::from_env_map([
            ("BILLING_URL", "http://127.0.0.1:3001"),
            ("BREAKER_NAM", "billing-eu"),
            ("BREAKER_REFRESH", "0s"),
        ])
        .strict(),
        breaker(),
    )
    .expect_err("refused")
    .to_string();
    for part in [
        "the variable `BREAKER_NAM` is under the settings prefix `BREAKER_`",
        "did you mean `BREAKER_NAME`?",
        "`refresh` is zero",
    ] {
        assert!(refused.contains(part), "{part} in\n{refused}");
    }
}

/// Issue 41, point 27: `orders`' logs written to a pipe (as to a file or a log collector)
/// carry no ANSI colour codes: not one ESC byte in what it printed up to an order's line.
#[cfg(unix)]
#[tokio::test]
async fn orders_logs_to_a_pipe_without_colour_codes() {
    use support::examples::Example;

    let orders = Example::start("orders", &[], &[]);
    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let request = http::Request::post(format!("{}/orders", orders.base()))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(r#"{"userId":"u1","amount":5}"#)))
        .unwrap();
    assert_eq!(client.request(request).await.unwrap().status(), 201);
    tokio::time::timeout(Duration::from_secs(30), async {
        while !orders.printed("order created") {
            tokio::time::sleep(Duration::from_millis(10)).await; // the pipe's pace
        }
    })
    .await
    .expect("the order is logged");
    assert!(
        orders.printed(" INFO "),
        "the level is written as plain text"
    );
    assert!(!orders.printed("\u{1b}"), "an escape code in a pipe");
    assert!(orders.stop().success());
}

/// Issue 36, point 7: the demo's two switches. Without `BILLING_URL`, `fakeBilling` is on:
/// billing is a fake the app starts itself, an order goes through it, and `close()` stops it;
/// with it, the fake is off in this shape (GT0106). `sharedBreaker` reads only whether the
/// Redis URL (a secret) is set, and explain says so without ever showing it.
#[tokio::test]
async fn the_demo_s_switches_decide_billing_and_its_breaker() {
    let breaker = || CircuitBreaker::new(Config::new(3, Duration::from_secs(30)).name("billing"));
    let app = orders::app(
        Sources::from_env_map([("BILLING_TIMEOUT", "5s")]).strict(),
        breaker(),
    )
    .unwrap();
    let switches = app.explain_all().switches;
    let decided: Vec<(&str, Option<&str>, &str)> = (switches.switches.iter())
        .map(|s| (s.name.as_str(), s.outcome.as_deref(), s.from.as_str()))
        .collect();
    assert_eq!(
        decided,
        [
            (
                "fakeBilling",
                Some("true"),
                "`billingSettings`: `url` is unset"
            ),
            (
                "sharedBreaker",
                Some("false"),
                "`sharingSettings`: `redis_url` is unset"
            ),
        ]
    );
    let fake = app.get::<FakeBilling>("fakeBilling").await.unwrap();
    let client = green_tea::test::TestClient::new(app.clone());
    let created = client
        .post("/orders")
        .json(&serde_json::json!({ "userId": "u1", "amount": 5 }))
        .send()
        .await;
    assert_eq!(created.status(), 201, "{}", created.text());
    assert_eq!(fake.hits(), 1);
    app.close().await.unwrap();
    // Closed with the app: its port no longer serves it. Asked as a charge, not as a bare
    // connect: the freed port can be bound again at once by another test's listener (a Redis
    // node's, a demo's), which would accept a connection but never answer a charge.
    let client = BillingClient::new(fake.url(), Duration::from_secs(2)).unwrap();
    let gone = client.charge("u1", 5).await;
    assert!(gone.is_err(), "the fake still answers at {}", fake.url());
    assert_eq!(fake.hits(), 1, "a charge reached the closed fake");

    let url = "redis://:s3cr3t@127.0.0.1:6379/";
    let vars = [
        ("BILLING_URL", "http://127.0.0.1:3001"),
        ("BREAKER_REDIS_URL", url),
    ];
    let app = orders::app(Sources::from_env_map(vars).strict(), breaker()).unwrap();
    let err = app.get::<FakeBilling>("fakeBilling").await.unwrap_err();
    assert_eq!(err.code(), Some("GT0106"), "{err}");
    let explained = app.explain_all();
    let text = explained.to_string();
    assert!(
        text.contains("`sharedBreaker` = true (of false, true), from `sharingSettings`: `redis_url` is set (env BREAKER_REDIS_URL)"),
        "{text}"
    );
    let page = explained.to_html();
    let json = explained.to_json().to_string();
    for shown in [&text, &page, &json] {
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }
    app.close().await.unwrap();
}

/// Issue 37: the demo's shape, as `main` serves it, is the one `examples/orders.lock` records.
#[test]
fn the_demo_s_shape_is_the_locked_one() {
    let app = orders::served(
        Sources::from_env_map(Vec::<(String, String)>::new()).strict(),
        String::new,
    )
    .build()
    .unwrap();
    green_tea::test::assert_graph_lock(&app, "examples/orders.lock");
}

/// Issue 37: the demo's lock fails its check when the shape grows a need, and says so in
/// sentences: here a fraud check that billing's settings now pass through, as a decorator.
#[test]
fn the_demo_s_lock_fails_when_a_need_is_added() {
    let fraud = green_tea::ProviderFn::new("billingSettings", |needs| async move {
        let settings = needs.get::<BillingSettings>(0)?;
        let _fraud = needs.get::<u32>(1)?;
        Ok(BillingSettings::clone(&settings))
    })
    .named("fraudChecked")
    .needs::<BillingSettings>("billingSettings")
    .needs::<u32>("fraudApi");
    let sources = Sources::from_env_map(Vec::<(String, String)>::new()).strict();
    let app = orders::served(sources, String::new)
        .value("fraudApi", 7_u32)
        .decorator(fraud)
        .build()
        .unwrap();
    let failure = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        green_tea::test::assert_graph_lock(&app, "examples/orders.lock")
    }))
    .unwrap_err();
    let message = failure.downcast_ref::<String>().unwrap();
    for sentence in [
        "route `POST /orders` now builds `fraudApi` (new value)",
        "new value `fraudApi`: `u32`",
        "decorators and collections:\n  - decorator `fraudChecked` now wraps `billingSettings`\n\n",
    ] {
        assert!(message.contains(sentence), "{sentence} in\n{message}");
    }
}

/// Issue 38, point 1: where the breaker is shared, reaching the fleet's Redis is bounded by
/// `BREAKER_CONNECT_TIMEOUT`, `billing`'s build timeout read from the settings: a Redis that
/// accepts and never answers fails the start by it, naming the provider of `billing` and that
/// timeout (on
/// tokio's paused clock: its 300 ms comes before the recipe's own 500 ms reply timeout).
#[tokio::test(start_paused = true)]
async fn a_silent_redis_fails_the_start_by_the_settings_build_timeout() {
    use green_tea::error::FailureCause;
    use green_tea_core::ProvideError;

    // Accepted by the kernel, never read: a handshake that never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}/", silent.local_addr().unwrap());
    let app = orders::builder(Sources::from_env_map([
        ("BREAKER_REDIS_URL", url.as_str()),
        ("BREAKER_CONNECT_TIMEOUT", "300ms"),
    ]))
    .build()
    .unwrap();
    let error = app.start().await.unwrap_err();
    let ProvideError::Failed {
        provider, cause, ..
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(provider, "FleetBilling", "{error}");
    assert!(
        matches!(cause, FailureCause::TimedOut(limit) if *limit == Duration::from_millis(300)),
        "{error}"
    );
    assert!(
        error.to_string().contains("did not finish within 300ms"),
        "{error}"
    );
    assert!(app.is_closed());
    drop(silent);
}

/// Issue 39, point 6: the demo reloads billing's timeout and breaker from its settings file,
/// on a save and on SIGHUP, as a real process; a save with a problem, and a change of a setting
/// that needs a restart, change nothing and say why in the readiness route's JSON.
#[cfg(unix)]
#[tokio::test]
async fn the_demo_reloads_billing_s_timeout_and_breaker_on_a_save_and_on_sighup() {
    use support::examples::Example;

    let dir = std::env::temp_dir().join(format!("green-tea-orders-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("orders.toml");
    std::fs::write(&file, "[billing]\ntimeout = \"2s\"\n").unwrap();
    let orders = Example::start(
        "orders",
        &[],
        &[("ORDERS_SETTINGS", file.to_str().unwrap())],
    );
    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let base = orders.base();
    let readiness = || async {
        serde_json::from_str::<serde_json::Value>(&text(&client, &base, "/readyz").await).unwrap()
    };
    let order = || async {
        let request = http::Request::post(format!("{}/orders", orders.base()))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(r#"{"userId":"u1","amount":5}"#)))
            .unwrap();
        client.request(request).await.unwrap().status()
    };
    assert_eq!(readiness().await["generation"], 0);
    assert_eq!(order().await, 201);

    // A save: the file is read every second, and a change applied once it has settled.
    std::fs::write(
        &file,
        "[billing]\ntimeout = \"3s\"\n[billing.breaker]\nthreshold = 5\n",
    )
    .unwrap();
    until(&client, &base, |health| health["generation"] == 1).await;
    assert!(orders.printed("the settings file changed: reloading"));
    let page = text(&client, &base, "/_green-tea").await;
    assert!(
        page.contains("threshold = 5"),
        "the explain page shows what serves"
    );
    assert_eq!(order().await, 201, "orders go through the new billing");

    // A save with a problem: kept out, and said.
    std::fs::write(&file, "[billing]\ntimeout = \"soon\"\n").unwrap();
    let health = until(&client, &base, |health| {
        health["reload_failure"].is_string()
    })
    .await;
    let failure = health["reload_failure"].as_str().unwrap();
    assert!(
        failure.contains("`timeout` of `billingSettings`"),
        "{failure}"
    );
    assert_eq!(health["generation"], 1);
    assert_eq!(order().await, 201);

    // A setting that needs a restart (a switch reads whether the URL is set): refused whole,
    // with the change beside it that could have reloaded.
    std::fs::write(
        &file,
        "[billing]\ntimeout = \"4s\"\nurl = \"http://127.0.0.1:9\"\n",
    )
    .unwrap();
    let health = until(&client, &base, |health| {
        health["reload_failure"]
            .as_str()
            .is_some_and(|f| f.contains("GT0109"))
    })
    .await;
    let failure = health["reload_failure"].as_str().unwrap();
    assert!(
        failure.contains("the switch `fakeBilling` reads it"),
        "{failure}"
    );
    assert_eq!(health["generation"], 1);

    // SIGHUP, at once after a good save (before the file's next read): the signal's reload.
    std::fs::write(&file, "[billing]\ntimeout = \"4s\"\n").unwrap();
    orders.signal("HUP");
    let health = until(&client, &base, |health| health["generation"] == 2).await;
    assert!(health["reload_failure"].is_null(), "{health}");
    assert!(orders.printed("SIGHUP: reloading the settings"));
    assert_eq!(order().await, 201);
    assert!(
        orders.stop().success(),
        "SIGHUP did not end it, SIGTERM closed it cleanly"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The body of `GET base + path`, as text.
async fn text(client: &HttpClient, base: &str, path: &str) -> String {
    let request = http::Request::get(format!("{base}{path}"))
        .body(Full::new(Bytes::new()))
        .unwrap();
    let response = client.request(request).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(body.to_vec()).unwrap()
}

/// The readiness route's JSON once `done` says so: polled, as an operator's probe would (up
/// to 30 s: the reloads it waits for take a second or two).
async fn until(
    client: &HttpClient,
    base: &str,
    done: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let mut health = serde_json::Value::Null;
    for _ in 0..600 {
        health = serde_json::from_str(&text(client, base, "/readyz").await).unwrap();
        if done(&health) {
            return health;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never happened: {health}");
}
