//! `#[step]` expansions, used through the facade as an application would.

use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::http::Method;
use green_tea::prelude::*;
use green_tea::steps::Step;
use green_tea::test::TestClient;
use http::{HeaderMap, HeaderValue, Uri};
use serde::Deserialize;
use std::sync::Arc;

/// Tokens and the names they stand for.
struct Sessions {
    tokens: Vec<(&'static str, &'static str)>,
}

#[provider(provides = "sessions")]
fn sessions() -> Sessions {
    Sessions {
        tokens: vec![("t-ada", "ada"), ("t-admin", "admin")],
    }
}

#[derive(Deserialize)]
struct Prefs {
    lang: Option<String>,
}

#[derive(Debug)]
struct User {
    name: String,
    lang: String,
}

/// The request head (`&HeaderMap`), a need (`&Sessions`) and an extractor (`Query`).
#[step(provides = "user", needs = "sessions")]
async fn auth(
    headers: &HeaderMap,
    sessions: &Sessions,
    Query(prefs): Query<Prefs>,
) -> Result<User, HttpError> {
    let token = headers
        .get("x-token")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| HttpError::unauthorized("no token"))?;
    let (_, name) = sessions
        .tokens
        .iter()
        .find(|(t, _)| *t == token)
        .ok_or_else(|| HttpError::unauthorized("unknown token"))?;
    Ok(User {
        name: (*name).to_owned(),
        lang: prefs.lang.unwrap_or_else(|| "en".to_owned()),
    })
}

/// Sync, `Arc<T>`, and two values from a tuple.
#[step(provides = ["greeting", "shouted"], needs = ["user"])]
fn greeting(user: Arc<User>) -> (String, bool) {
    let hello = if user.lang == "fr" {
        "bonjour"
    } else {
        "hello"
    };
    (format!("{hello}, {}", user.name), user.name == "admin")
}

/// A guard: provides nothing, rejects non-admins.
#[step(needs = "user")]
fn require_admin(user: &User) -> Result<(), HttpError> {
    if user.name == "admin" {
        Ok(())
    } else {
        Err(HttpError::forbidden("admins only"))
    }
}

/// A guard that changes the head: an extractor (`Method`) next to `&mut Parts`, returning `()`.
#[step]
async fn stamp(method: Method, parts: &mut Parts) {
    let stamp = HeaderValue::from_str(&format!("stamped {method}")).unwrap();
    parts.headers.insert("x-stamp", stamp);
}

/// Every head accessor at once, shared.
#[step(provides = "described")]
fn describe(parts: &Parts, method: &Method, uri: &Uri, headers: &HeaderMap) -> String {
    assert_eq!(parts.uri, *uri);
    format!("{method} {} ({} headers)", uri.path(), headers.len())
}

struct Pages;

#[route("/")]
impl Pages {
    #[get("/hello")]
    async fn hello(
        #[needs("greeting")] greeting: &String,
        #[needs("handled")] handled: &AtomicUsize,
    ) -> String {
        handled.fetch_add(1, Ordering::SeqCst);
        greeting.clone()
    }

    #[get("/admin", steps = ["require_admin"])]
    async fn admin(
        #[needs("shouted")] shouted: Arc<bool>,
        #[needs("handled")] handled: &AtomicUsize,
    ) -> String {
        handled.fetch_add(1, Ordering::SeqCst);
        format!("admin: {shouted}")
    }

    #[post("/stamp", steps = ["stamp"])]
    async fn stamped(headers: HeaderMap) -> String {
        headers["x-stamp"].to_str().unwrap().to_owned()
    }
}

fn app() -> App {
    App::builder()
        // How many handlers ran: the app's own (tests run side by side, each with an app).
        .value("handled", AtomicUsize::new(0))
        .provider(sessions::provider())
        .step(auth::step())
        .step(greeting::step())
        .step(require_admin::step())
        .step(stamp::step())
        .step(describe::step())
        .routes(Pages::routes())
        .route(
            Route::get("/describe", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
            })
            .needs::<String>("described"),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn headers_needs_and_extractors_reach_the_step() {
    let app = app();
    let client = TestClient::new(app.clone());
    let ok = client
        .get("/hello?lang=fr")
        .header("x-token", "t-ada")
        .send()
        .await;
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.text(), "bonjour, ada");
    let ok = client.get("/hello").header("x-token", "t-ada").send().await;
    assert_eq!(ok.text(), "hello, ada");
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_rejection_is_the_response_and_nothing_after_it_runs() {
    let app = app();
    let client = TestClient::new(app.clone());
    let handled = app.get::<AtomicUsize>("handled").await.unwrap();
    let rejected = client.get("/hello").send().await;
    assert_eq!(rejected.status(), 401);
    assert_eq!(rejected.json::<serde_json::Value>()["error"], "no token");
    let rejected = client.get("/admin").header("x-token", "t-ada").send().await;
    assert_eq!(rejected.status(), 403);
    assert_eq!(handled.load(Ordering::SeqCst), 0, "no handler ran");
    let ok = client
        .get("/admin")
        .header("x-token", "t-admin")
        .send()
        .await;
    assert_eq!(ok.text(), "admin: true");
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_bad_extractor_input_rejects_the_request() {
    let app = app();
    let client = TestClient::new(app.clone());
    let rejected = client
        .get("/hello?lang=fr&lang=en")
        .header("x-token", "t-ada")
        .send()
        .await;
    assert_eq!(rejected.status(), 400);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_step_may_change_the_request_head() {
    let app = app();
    let client = TestClient::new(app.clone());
    assert_eq!(client.post("/stamp").send().await.text(), "stamped POST");
    app.close().await.unwrap();
}

#[tokio::test]
async fn every_head_accessor() {
    let app = app();
    let client = TestClient::new(app.clone());
    let described = client.get("/describe").header("a", "1").send().await;
    assert_eq!(described.text(), "GET /describe (1 headers)");
    app.close().await.unwrap();
}

#[tokio::test]
async fn the_fn_stays_callable() {
    let user = Arc::new(User {
        name: "admin".to_owned(),
        lang: "en".to_owned(),
    });
    assert_eq!(
        greeting(Arc::clone(&user)),
        ("hello, admin".to_owned(), true)
    );
    assert!(require_admin(&user).is_ok());
    let sessions = sessions();
    let mut headers = HeaderMap::new();
    headers.insert("x-token", HeaderValue::from_static("t-ada"));
    let auth = auth(&headers, &sessions, Query(Prefs { lang: None })).await;
    assert_eq!(auth.unwrap().name, "ada");
}

#[test]
fn the_descriptor_names_the_fn_and_points_at_it() {
    let descriptor = auth::step().descriptor();
    assert_eq!(descriptor.name, "auth");
    let provides: Vec<&str> = descriptor.provides.iter().map(|k| k.key.as_str()).collect();
    assert_eq!(provides, ["user"]);
    let needs: Vec<&str> = descriptor.needs.iter().map(|k| k.key.as_str()).collect();
    assert_eq!(needs, ["sessions"]);
    assert!(descriptor.location.file().ends_with("pass/step.rs"));
    let guard = require_admin::step().descriptor();
    assert!(guard.provides.is_empty());
    let two = greeting::step().descriptor();
    assert_eq!(two.provides.len(), 2);
}

#[test]
fn explain_shows_the_steps_a_route_runs() {
    let app = app();
    let explained = app.explain("/admin").unwrap();
    let mut steps: Vec<&str> = explained.routes[0]
        .steps
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(steps[0], "auth", "what the others need runs first");
    steps.sort_unstable();
    assert_eq!(steps, ["auth", "greeting", "require_admin"]);
}
