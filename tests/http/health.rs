//! `app.health().await` and the health routes: providers built / failed / never needed,
//! critical keys, health checks, readiness before start, and both routes over loopback during
//! a drain. (The async health checks: `tests/http/health_async.rs`.)

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use green_tea::App;
use green_tea::error::Problem;
use green_tea::extract::RequestContext;
use green_tea::health::{Check, CheckStatus, HealthCheck, ProviderState};
use green_tea::http::{Method, StatusCode};
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{BoxError, Provider, ProviderFn};
use support::http::{Gate, Server, get, http1_client, send, until, within};

/// A provider of `db` that fails while `failing` is set.
fn db(failing: &Arc<AtomicBool>) -> impl Provider {
    let failing = Arc::clone(failing);
    ProviderFn::new("db", move |_| {
        let failing = failing.load(Ordering::SeqCst);
        async move {
            if failing {
                Err::<u32, BoxError>("connection refused".into())
            } else {
                Ok(7_u32)
            }
        }
    })
}

fn app_with_db(failing: &Arc<AtomicBool>) -> App {
    App::builder()
        .provider(db(failing))
        .value("unused", String::from("never needed"))
        .critical("db")
        .health_routes("/healthz", "/readyz")
        .route(
            Route::get("/orders", |request: RequestContext| async move {
                request.need::<u32>(0).map(|db| db.to_string())
            })
            .needs::<u32>("db"),
        )
        .build()
        .unwrap()
}

fn provider<'a>(
    health: &'a green_tea::health::AppHealth,
    name: &str,
) -> &'a green_tea::health::ProviderHealth {
    health
        .providers
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no provider {name} in {:?}", health.providers))
}

#[tokio::test]
async fn health_shows_built_failed_and_never_needed_providers() {
    let failing = Arc::new(AtomicBool::new(true));
    let app = app_with_db(&failing);
    let health = app.health().await;
    assert!(health.live);
    assert!(!health.ready, "not started");
    assert_eq!(provider(&health, "db").state, ProviderState::NotBuilt);

    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/orders").send().await.status(), 500);
    let health = app.health().await;
    let db = provider(&health, "db");
    assert_eq!(db.state, ProviderState::Failed);
    assert!(db.error.as_deref().unwrap().contains("connection refused"));
    assert_eq!(
        provider(&health, "value `unused`").state,
        ProviderState::NotBuilt
    );
    assert!(
        health
            .reasons
            .iter()
            .any(|r| r.contains("critical `db`") && r.contains("connection refused")),
        "{:?}",
        health.reasons
    );

    // The next request retries; a success clears the error.
    failing.store(false, Ordering::SeqCst);
    assert_eq!(client.get("/orders").send().await.text(), "7");
    let health = app.health().await;
    let db = provider(&health, "db");
    assert_eq!(db.state, ProviderState::Built);
    assert!(db.error.is_none() && db.build_micros.is_some());

    let json = serde_json::to_value(&health).unwrap();
    assert_eq!(json["critical"][0], "db");
    let db = json["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "db");
    assert_eq!(db.unwrap()["state"], "built");

    app.close().await.unwrap();
    let health = app.health().await;
    assert!(health.closed && !health.live && !health.ready);
    assert_eq!(provider(&health, "db").state, ProviderState::Disposed);
}

#[tokio::test]
async fn a_critical_key_fails_with_any_decorator_over_it() {
    let failing = Arc::new(AtomicBool::new(true));
    let flag = Arc::clone(&failing);
    let app = App::builder()
        .value("db", 7_u32)
        .decorator(
            ProviderFn::new("db", move |needs| {
                let failing = flag.load(Ordering::SeqCst);
                async move {
                    if failing {
                        return Err::<u32, BoxError>("pool exhausted".into());
                    }
                    Ok(*needs.get::<u32>(0)? + 1)
                }
            })
            .needs::<u32>("db")
            .named("pooled"),
        )
        .critical("db")
        .route(
            Route::get("/orders", |request: RequestContext| async move {
                request.need::<u32>(0).map(|db| db.to_string())
            })
            .needs::<u32>("db"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/orders").send().await.status(), 500);
    let health = app.health().await;
    assert_eq!(provider(&health, "value `db`").state, ProviderState::Built);
    let pooled = provider(&health, "pooled");
    assert_eq!(
        (pooled.kind, pooled.state),
        (green_tea::error::NodeKind::Decorator, ProviderState::Failed)
    );
    assert!(
        health.reasons.iter().any(|r| r
            .starts_with("critical `db`: decorator `pooled` (of `db`) failed: ")
            && r.ends_with("pool exhausted")),
        "the value under it is fine, the key is not: {:?}",
        health.reasons
    );

    failing.store(false, Ordering::SeqCst);
    assert_eq!(client.get("/orders").send().await.text(), "8");
    assert!(
        !app.health()
            .await
            .reasons
            .iter()
            .any(|r| r.contains("critical")),
        "{:?}",
        app.health().await.reasons
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn readiness_needs_start_and_no_failed_critical_provider() {
    let failing = Arc::new(AtomicBool::new(false));
    let app = app_with_db(&failing);
    let client = TestClient::new(app.clone());
    let ready = client.get("/readyz").send().await;
    assert_eq!(ready.status(), 503);
    let body: serde_json::Value = ready.json();
    assert_eq!(body["ready"], false);
    assert!(
        body["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("not started")
    );
    assert_eq!(client.get("/healthz").send().await.status(), 200);

    app.start().await.unwrap();
    let ready = client.get("/readyz").send().await;
    assert_eq!(ready.status(), 200);
    assert_eq!(ready.header("content-type"), Some("application/json"));
    assert_eq!(
        ready.json::<serde_json::Value>()["reasons"],
        serde_json::json!([])
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_failed_start_leaves_the_app_unready() {
    let failing = Arc::new(AtomicBool::new(true));
    let app = app_with_db(&failing);
    assert!(app.start().await.is_err());
    let health = app.health().await;
    assert!(!health.ready && !health.started);
    assert_eq!(provider(&health, "db").state, ProviderState::Failed);
    app.close().await.unwrap();
}

#[tokio::test]
async fn health_routes_answer_get_and_head_only() {
    let failing = Arc::new(AtomicBool::new(false));
    let client = TestClient::new(app_with_db(&failing));
    let post = client.post("/healthz").send().await;
    assert_eq!(post.status(), 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    assert_eq!(
        client
            .request(Method::HEAD, "/healthz")
            .send()
            .await
            .status(),
        200
    );
    let live = client.get("/healthz").send().await;
    assert_eq!(live.header("cache-control"), Some("no-store"));
    assert_eq!(
        live.json::<serde_json::Value>(),
        serde_json::json!({"live": true, "draining": false, "closed": false})
    );
}

struct Breaker {
    open: AtomicBool,
}

impl HealthCheck for Breaker {
    fn check(&self) -> Check {
        if self.open.load(Ordering::SeqCst) {
            Check::down("open")
        } else {
            Check::up().detail("closed")
        }
    }
}

#[tokio::test]
async fn health_checks_ask_built_values_only() {
    let app = App::builder()
        .provider(ProviderFn::new("billingBreaker", |_| async {
            Ok(Breaker {
                open: AtomicBool::new(true),
            })
        }))
        .health_check::<Breaker>("billingBreaker")
        .build()
        .unwrap();
    let checks = app.health().await.checks;
    assert_eq!(checks[0].key, "billingBreaker");
    assert!(checks[0].check.is_none(), "never built to be asked");
    app.get::<Breaker>("billingBreaker").await.unwrap();
    let check = app.health().await.checks[0].check.clone().unwrap();
    assert_eq!(check.status, CheckStatus::Down);
    assert_eq!(check.detail.as_deref(), Some("open"));
    let json = serde_json::to_value(app.health().await).unwrap();
    assert_eq!(json["checks"][0]["check"]["status"], "down");
    app.close().await.unwrap();
}

#[test]
fn an_unknown_critical_key_is_gt0009_with_a_suggestion() {
    let err = App::builder()
        .value("billingApi", 1_u32)
        .critical("billing_api")
        .build()
        .unwrap_err();
    let [
        Problem::HealthKey {
            key,
            found,
            suggestion,
            ..
        },
    ] = err.problems()
    else {
        panic!("{err}");
    };
    assert_eq!(key.as_str(), "billing_api");
    assert!(found.is_none());
    assert_eq!(suggestion.as_ref().unwrap().key.as_str(), "billingApi");
    assert_eq!(err.problems()[0].code(), "GT0009");
    let text = err.to_string();
    assert!(
        text.contains("error[GT0009]: `critical(\"billing_api\")`"),
        "{text}"
    );
    assert!(text.contains("did you mean `billingApi`?"), "{text}");
}

#[test]
fn a_health_check_of_an_unknown_key_or_another_type_is_gt0009() {
    let err = App::builder()
        .value("billingBreaker", 1_u32)
        .health_check::<Breaker>("billingBreaker")
        .health_check::<Breaker>("nothing")
        .build()
        .unwrap_err();
    assert_eq!(err.problems().len(), 2, "{err}");
    assert!(err.problems().iter().all(|p| p.code() == "GT0009"));
    let text = err.to_string();
    assert!(
        text.contains("checks `billingBreaker`, which has type `u32`"),
        "{text}"
    );
    assert!(text.contains("is not a `Breaker`"), "{text}");
    assert!(
        text.contains("names `nothing`, but nothing provides `nothing`"),
        "{text}"
    );
}

#[test]
fn built_in_paths_that_clash_are_gt0008() {
    let route = || Route::get("/healthz", |_: RequestContext| async { "mine" });
    let clash = App::builder()
        .route(route())
        .health_routes("/healthz", "/readyz")
        .build();
    let text = clash.unwrap_err().to_string();
    assert!(
        text.contains("GT0008") && text.contains("a route already serves /healthz"),
        "{text}"
    );

    let same = App::builder()
        .health_routes("/health", "/health")
        .build()
        .unwrap_err();
    assert!(
        same.to_string()
            .contains("GET /health (liveness) is at the same path"),
        "{same}"
    );

    let relative = App::builder()
        .explain_page("_green-tea")
        .build()
        .unwrap_err();
    assert!(matches!(
        relative.problems()[0],
        Problem::RouteConflict { .. }
    ));
    assert!(
        relative
            .to_string()
            .contains("a plain path starting with `/`: `_green-tea`")
    );

    let page = App::builder()
        .health_routes("/healthz", "/readyz")
        .explain_page("/readyz")
        .build()
        .unwrap_err();
    assert!(page.to_string().contains("is at the same path"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn during_a_drain_readiness_is_503_liveness_200_and_routes_503() {
    let gate = Gate::new();
    let entered = Arc::new(AtomicUsize::new(0));
    let app = App::builder()
        .health_routes("/healthz", "/readyz")
        .route(Route::get("/slow", {
            let (gate, entered) = (gate.clone(), Arc::clone(&entered));
            move |_: RequestContext| {
                let (gate, entered) = (gate.clone(), Arc::clone(&entered));
                async move {
                    entered.fetch_add(1, Ordering::SeqCst);
                    gate.pass().await;
                    "done"
                }
            }
        }))
        .route(Route::get("/other", |_: RequestContext| async { "other" }))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    // Serving makes the app ready without `start()`.
    let ready = within("GET /readyz", get(&http1_client(), &server.url("/readyz")))
        .await
        .unwrap();
    assert_eq!(ready.status, StatusCode::OK, "{}", ready.text());

    let slow = tokio::spawn({
        let url = server.url("/slow");
        async move { get(&http1_client(), &url).await }
    });
    until("the slow request is in flight", || {
        entered.load(Ordering::SeqCst) == 1
    })
    .await;
    let closing = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    until("close() has begun", || app.is_closed()).await;

    // A fresh client each time: the server closes its idle connections when the drain begins.
    let addr = server.addr;
    let ask = |path: &str| {
        let url = format!("http://{addr}{path}");
        async move { within(&url.clone(), send(&http1_client(), Method::GET, &url, None)).await }
    };
    let ready = ask("/readyz").await.unwrap();
    assert_eq!(ready.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(ready.json()["draining"], true);
    assert!(
        ready.json()["reasons"][0]
            .as_str()
            .unwrap()
            .contains("draining")
    );
    let live = ask("/healthz").await.unwrap();
    assert_eq!(live.status, StatusCode::OK);
    assert_eq!(
        live.json(),
        serde_json::json!({"live": true, "draining": true, "closed": false})
    );
    let other = ask("/other").await.unwrap();
    assert_eq!(other.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        !closing.is_finished(),
        "close() waits for the request in flight"
    );

    gate.open();
    let slow = within("the slow request", slow).await.unwrap().unwrap();
    assert_eq!(slow.text(), "done");
    within("close()", closing).await.unwrap().unwrap();
    server.finished().await.unwrap();
    let health = app.health().await;
    assert!(!health.live && health.closed);
    // Closed: no longer listening.
    assert!(ask("/healthz").await.is_err());
}

#[tokio::test]
async fn after_close_liveness_is_503() {
    let failing = Arc::new(AtomicBool::new(false));
    let app = app_with_db(&failing);
    app.close().await.unwrap();
    let client = TestClient::new(app);
    let live = client.get("/healthz").send().await;
    assert_eq!(live.status(), 503);
    assert_eq!(
        live.json::<serde_json::Value>(),
        serde_json::json!({"live": false, "draining": false, "closed": true})
    );
    assert_eq!(client.get("/readyz").send().await.status(), 503);
}
