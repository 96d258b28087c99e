//! Routes, steps and bad input through `TestClient`.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::extract::RequestContext;
use green_tea::future::StepFuture;
use green_tea::http::request::Parts;
use green_tea::routing::Route;
use green_tea::steps::{Guard, Step, StepFn};
use green_tea::test::TestClient;
use green_tea::{App, HttpError, Json};
use green_tea::{Descriptor, Needs, Provided};
use serde_json::{Value, json};
use support::logs::Logs;
use support::{Log, Probe, Service};

fn app(log: &Log, step_runs: &Arc<AtomicUsize>) -> App {
    let runs = Arc::clone(step_runs);
    App::builder()
        .provider(Probe::new("billingApi", &[], log))
        .provider(Probe::new("billing", &["billingApi"], log))
        .step(
            StepFn::new("user", move |parts, _| {
                runs.fetch_add(1, Ordering::SeqCst);
                parts
                    .headers
                    .get("x-user")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
                    .ok_or_else(|| HttpError::unauthorized("who are you?"))
            })
            .named("auth"),
        )
        .step(
            Guard::new("require_admin", |_, needs| match needs.get::<String>(0) {
                Ok(user) if *user == "admin" => Ok(()),
                _ => Err(HttpError::forbidden("admins only")),
            })
            .needs::<String>("user"),
        )
        .route(
            Route::post("/orders", |mut request: RequestContext| async move {
                let billing = request.need::<Service>(0)?;
                let user = request.need::<String>(1)?;
                let order: Value = request.json().await?;
                Ok::<_, HttpError>(Json(
                    json!({ "ok": true, "by": *user, "via": billing.name, "order": order }),
                ))
            })
            .needs::<Service>("billing")
            .needs::<String>("user")
            .named("Orders::create"),
        )
        .route(Route::get("/orders/health", |_: RequestContext| async {
            Json(json!({ "ok": true }))
        }))
        .route(
            Route::delete("/admin", |_: RequestContext| async { "deleted" }).step("require_admin"),
        )
        .route(Route::get("/panic", |_: RequestContext| async {
            panic!("boom") as &str
        }))
        .route(
            Route::post(
                "/small",
                |mut r: RequestContext| async move { r.text().await },
            )
            .body_limit(8),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_route_runs_its_step_and_builds_only_its_slice() {
    let (log, runs) = (Log::default(), Arc::default());
    let app = app(&log, &runs);
    let client = TestClient::new(app.clone());

    let health = client.get("/orders/health").send().await;
    assert_eq!(health.status(), 200);
    assert_eq!(runs.load(Ordering::SeqCst), 0, "health needs no step");
    assert!(log.events().is_empty(), "health builds no provider");
    let explain = app.explain("/orders").unwrap();
    assert!(explain.routes[0].providers.nodes.iter().all(|n| !n.built));

    for _ in 0..3 {
        let created = client
            .post("/orders")
            .header("x-user", "ada")
            .json(&json!({ "amount": 5 }))
            .send()
            .await;
        assert_eq!(created.status(), 200, "{}", created.text());
        let body: Value = created.json();
        assert_eq!(
            (body["by"].as_str(), body["via"].as_str()),
            (Some("ada"), Some("billing"))
        );
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        3,
        "the step ran once per request"
    );
    assert_eq!(
        log.names("provide"),
        ["billingApi", "billing"],
        "each provider built once"
    );
    let explain = app.explain("/orders").unwrap();
    assert!(explain.routes[0].providers.nodes.iter().all(|n| n.built));

    app.close().await.unwrap();
    assert_eq!(log.names("dispose"), ["billing", "billingApi"]);
}

#[tokio::test]
async fn a_step_rejection_short_circuits() {
    let (log, runs) = (Log::default(), Arc::default());
    let client = TestClient::new(app(&log, &runs));
    let anonymous = client.post("/orders").json(&json!({})).send().await;
    assert_eq!(anonymous.status(), 401);
    assert_eq!(
        anonymous.json::<Value>(),
        json!({ "error": "who are you?" })
    );
    assert!(
        log.events().is_empty(),
        "rejected before any provider was needed"
    );

    let not_admin = client.delete("/admin").header("x-user", "ada").send().await;
    assert_eq!(not_admin.status(), 403);
    let admin = client
        .delete("/admin")
        .header("x-user", "admin")
        .send()
        .await;
    assert_eq!(
        (admin.status().as_u16(), admin.text().as_str()),
        (200, "deleted")
    );
}

#[tokio::test]
async fn bad_input_gets_a_json_error() {
    let (log, runs) = (Log::default(), Arc::default());
    let client = TestClient::new(app(&log, &runs));
    let post = || client.post("/orders").header("x-user", "ada");

    let malformed = post()
        .header("content-type", "application/json")
        .body("{\"amount\":")
        .send()
        .await;
    assert_eq!(malformed.status(), 400);
    assert!(
        malformed.json::<Value>()["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid JSON body: EOF")
    );

    let wrong_type = post()
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await;
    assert_eq!(wrong_type.status(), 415);
    assert_eq!(
        post().body("{}").send().await.status(),
        415,
        "missing content type"
    );

    let too_big = client.post("/small").body("123456789").send().await;
    assert_eq!(too_big.status(), 413);
    assert_eq!(
        too_big.json::<Value>()["error"],
        "the request body is larger than 8 bytes"
    );

    let not_found = client.get("/nope").send().await;
    assert_eq!(not_found.status(), 404);
    assert_eq!(not_found.json::<Value>()["error"], "no route for GET /nope");

    let wrong_method = client.put("/orders").send().await;
    assert_eq!(wrong_method.status(), 405);
    assert_eq!(wrong_method.header("allow"), Some("POST"));
    assert_eq!(
        wrong_method.header("content-type"),
        Some("application/json")
    );
}

#[tokio::test]
async fn a_panicking_handler_is_a_500_and_the_app_keeps_serving() {
    let (log, runs) = (Log::default(), Arc::default());
    let client = TestClient::new(app(&log, &runs));
    let panicked = client.get("/panic").send().await;
    assert_eq!(panicked.status(), 500);
    assert_eq!(
        panicked.json::<Value>(),
        json!({ "error": "internal server error" })
    );
    assert_eq!(client.get("/orders/health").send().await.status(), 200);
}

#[tokio::test]
async fn after_close_requests_get_503() {
    let (log, runs) = (Log::default(), Arc::default());
    let app = app(&log, &runs);
    app.close().await.unwrap();
    let response = TestClient::new(app).get("/orders/health").send().await;
    assert_eq!(response.status(), 503);
}

/// A hand-written step whose descriptor says `count: u32` but which returns a `String`.
struct Lying;

impl Step for Lying {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new("lying").provides::<u32>("count")
    }

    fn run<'a>(&'a self, _: &'a mut Parts, _: Needs<'a>) -> StepFuture<'a> {
        StepFuture::ready(Ok(Provided::one(String::from("not a number"))))
    }
}

#[tokio::test]
async fn a_step_returning_values_unlike_its_descriptor_is_a_500() {
    let reached = Arc::new(AtomicUsize::new(0));
    let handler_reached = Arc::clone(&reached);
    let app = App::builder()
        .step(Lying)
        .route(
            Route::get("/count", move |request: RequestContext| {
                handler_reached.fetch_add(1, Ordering::SeqCst);
                async move { Ok::<_, HttpError>(Json(*request.need::<u32>(0)?)) }
            })
            .needs::<u32>("count"),
        )
        .build()
        .unwrap();
    let response = TestClient::new(app).get("/count").send().await;
    assert_eq!(response.status(), 500);
    assert_eq!(
        response.json::<Value>(),
        json!({ "error": "internal server error" })
    );
    assert_eq!(reached.load(Ordering::SeqCst), 0, "stopped at the step");
}

/// A hand-written handler that asks for a need past those its route declares, or with another
/// type than declared, gets a JSON 500 (and the log says which), not a panic.
#[tokio::test]
async fn a_handler_asking_for_an_undeclared_or_mistyped_need_is_a_500() {
    let app = App::builder()
        .step(StepFn::new("count", |_, _| Ok(7_u32)))
        .route(
            Route::get("/past", |request: RequestContext| async move {
                Ok::<_, HttpError>(Json(*request.need::<u32>(1)?))
            })
            .needs::<u32>("count"),
        )
        .route(
            Route::get("/mistyped", |request: RequestContext| async move {
                Ok::<_, HttpError>(Json(*request.need_ref::<u64>(0)?))
            })
            .needs::<u32>("count"),
        )
        .route(
            Route::get("/right", |request: RequestContext| async move {
                Ok::<_, HttpError>(Json(*request.need_ref::<u32>(0)?))
            })
            .needs::<u32>("count"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let (logs, capturing) = Logs::start();
    for path in ["/past", "/mistyped"] {
        let response = client.get(path).send().await;
        assert_eq!(response.status(), 500, "{path}");
        assert_eq!(
            response.json::<Value>(),
            json!({ "error": "internal server error" }),
            "{path}"
        );
    }
    drop(capturing);
    let logged = logs.text();
    assert!(
        logged.contains("a handler asked for an undeclared need"),
        "{logged}"
    );
    assert!(logged.contains("index=1 declared=1"), "{logged}");
    assert!(
        logged.contains("a handler asked for a need with the wrong type"),
        "{logged}"
    );
    assert!(!logged.contains("panicked"), "{logged}");
    let response = client.get("/right").send().await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<u32>(), 7);
}
