//! Steps that finish: a fake transaction, begun by a step and written to by the handler
//! through its own lock, commits or rolls back in its `Finish` hook with the request's
//! outcome — after the handler, last-run step first, before the answer is returned. Each way a
//! request can end is here: an answer, an error, a panic, a later step's rejection, a failed
//! or panicking finish, a value still held, a client gone, a layer or a streamed body acting
//! after the finish.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::response::Response;
use green_tea::body::Body;
use green_tea::extract::RequestContext;
use green_tea::future::StepFuture;
use green_tea::http::request::Parts;
use green_tea::http::{Request, StatusCode};
use green_tea::prelude::*;
use green_tea::steps::{Finish, Finishing, Outcome, Step, StepFn};
use green_tea::test::TestClient;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use support::http::within;
use support::quiet_expected_panics;
use tokio::sync::{Notify, oneshot};
use tower::util::MapResponseLayer;
use tower_http::timeout::TimeoutLayer;

/// What the fake database saw: `begin tx`, `commit tx ["order 1"]`, `rollback tx`, `drop tx`,
/// and the outcome each finish was handed.
#[derive(Clone, Default)]
struct Journal {
    events: Arc<Mutex<Vec<String>>>,
    outcomes: Arc<Mutex<Vec<(&'static str, Outcome)>>>,
}

impl Journal {
    fn push(&self, event: impl Into<String>) {
        self.events.lock().unwrap().push(event.into());
    }

    fn events(&self) -> Vec<String> {
        self.events.lock().unwrap().clone()
    }

    /// The outcome `step`'s finish was handed; panics if it did not finish.
    fn outcome(&self, step: &str) -> Outcome {
        self.outcomes
            .lock()
            .unwrap()
            .iter()
            .find(|(s, _)| *s == step)
            .map(|(_, o)| o.clone())
            .unwrap_or_else(|| panic!("{step} did not finish: {:?}", self.events()))
    }

    fn finished(&self) -> usize {
        self.outcomes.lock().unwrap().len()
    }
}

/// How a transaction's commit goes.
#[derive(Clone)]
enum Commit {
    Succeeds,
    Fails,
    Panics,
    /// Sends the commit, then waits for its acknowledgement until the gate opens.
    WaitsFor(Arc<Notify>),
}

/// A fake transaction: writes held behind its own lock (a real one is `&mut`), made durable by
/// a commit only.
struct Tx {
    name: &'static str,
    journal: Journal,
    writes: tokio::sync::Mutex<Vec<String>>,
    commit: Commit,
}

impl Tx {
    fn begin(name: &'static str, journal: &Journal, commit: Commit) -> Self {
        journal.push(format!("begin {name}"));
        Tx {
            name,
            journal: journal.clone(),
            writes: tokio::sync::Mutex::new(Vec::new()),
            commit,
        }
    }

    async fn write(&self, row: &str) {
        self.writes.lock().await.push(row.to_owned());
    }
}

impl Drop for Tx {
    fn drop(&mut self) {
        self.journal.push(format!("drop {}", self.name));
    }
}

impl Finish for Tx {
    async fn finish(mut self, outcome: &Outcome) -> Result<(), HttpError> {
        let name = self.name;
        self.journal
            .outcomes
            .lock()
            .unwrap()
            .push((name, outcome.clone()));
        // Owned: the writes are taken out, not read through a shared lock.
        let writes = std::mem::take(self.writes.get_mut());
        if !outcome.is_success() {
            self.journal.push(format!("rollback {name}"));
            return Ok(());
        }
        match &self.commit {
            Commit::Succeeds => {
                self.journal.push(format!("commit {name} {writes:?}"));
                Ok(())
            }
            Commit::Fails => {
                self.journal.push(format!("commit {name} failed"));
                Err(HttpError::new(500, "commit failed"))
            }
            Commit::Panics => panic!("the commit panicked in {name}"),
            Commit::WaitsFor(acknowledged) => {
                self.journal.push(format!("commit {name} sent"));
                acknowledged.notified().await;
                self.journal.push(format!("commit {name} acknowledged"));
                Ok(())
            }
        }
    }
}

/// The step `name` that begins a transaction `name`, after the step `after` if given (it needs
/// its value), by hand.
fn tx_step(name: &'static str, commit: Commit, after: Option<&'static str>) -> impl Step {
    let step = StepFn::new(name, move |_parts, needs| {
        let journal = needs
            .get_ref::<Journal>(0)
            .map_err(|_| HttpError::internal())?;
        Ok(Tx::begin(name, journal, commit.clone()))
    })
    .needs::<Journal>("journal");
    match after {
        Some(after) => step.needs::<Tx>(after),
        None => step,
    }
    .finishes()
}

/// POST /orders: writes `order 1` into `tx` and answers 201, or what `answer` says instead.
fn orders(answer: fn(&str) -> Result<(StatusCode, &'static str), HttpError>) -> Route {
    Route::post("/orders", move |request: RequestContext| async move {
        let tx = request.need_ref::<Tx>(0)?;
        tx.write("order 1").await;
        let kind = request
            .parts()
            .headers
            .get("x-answer")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("created")
            .to_owned();
        answer(&kind)
    })
    .needs::<Tx>("tx")
}

fn created(kind: &str) -> Result<(StatusCode, &'static str), HttpError> {
    match kind {
        "conflict" => Err(HttpError::new(409, "order 1 exists")),
        "panic" => panic!("the handler panicked in create"),
        _ => Ok((StatusCode::CREATED, "created")),
    }
}

fn app_with(journal: &Journal, build: impl FnOnce(AppBuilder) -> AppBuilder) -> App {
    build(App::builder().value("journal", journal.clone()))
        .build()
        .unwrap()
}

/// The app of most cases: one finishing step `tx`, POST /orders.
fn orders_app(journal: &Journal) -> App {
    app_with(journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None))
            .route(orders(created))
    })
}

fn error_body(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("JSON expected ({e}): {text}"))
}

#[tokio::test]
async fn a_2xx_commits_with_the_value_owned_then_the_value_drops() {
    let journal = Journal::default();
    let app = orders_app(&journal);
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(response.status(), 201);
    assert_eq!(response.text(), "created");
    assert_eq!(
        journal.events(),
        ["begin tx", r#"commit tx ["order 1"]"#, "drop tx"],
        "committed before the answer was returned, and dropped by its finish"
    );
    let outcome = journal.outcome("tx");
    assert!(outcome.is_success());
    assert_eq!(outcome.status(), 201);
    assert_eq!(outcome.error(), None);
    assert_eq!(outcome.panic(), None);
    assert_eq!(outcome.rejected_by(), None);
    assert_eq!(outcome.failed_finish(), None);
    app.close().await.unwrap();
}

#[tokio::test]
async fn an_error_answer_rolls_back_and_the_outcome_has_its_status_and_message() {
    let journal = Journal::default();
    let app = orders_app(&journal);
    let response = TestClient::new(app.clone())
        .post("/orders")
        .header("x-answer", "conflict")
        .send()
        .await;
    assert_eq!(response.status(), 409);
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "order 1 exists" })
    );
    assert_eq!(journal.events(), ["begin tx", "rollback tx", "drop tx"]);
    let outcome = journal.outcome("tx");
    assert!(!outcome.is_success());
    assert_eq!(outcome.status(), 409);
    assert_eq!(outcome.error(), Some("order 1 exists"));
    assert_eq!(outcome.panic(), None);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_panicking_handler_rolls_back_answers_a_json_500_and_the_app_keeps_serving() {
    quiet_expected_panics();
    let journal = Journal::default();
    let app = orders_app(&journal);
    let client = TestClient::new(app.clone());
    let response = client
        .post("/orders")
        .header("x-answer", "panic")
        .send()
        .await;
    assert_eq!(response.status(), 500);
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "internal server error" })
    );
    assert_eq!(journal.events(), ["begin tx", "rollback tx", "drop tx"]);
    let outcome = journal.outcome("tx");
    assert_eq!(outcome.panic(), Some("the handler panicked in create"));
    assert_eq!(outcome.status(), 500);
    assert!(!outcome.is_success());

    let next = client.post("/orders").send().await;
    assert_eq!(next.status(), 201, "the app keeps serving");
    assert_eq!(
        journal.events()[3..],
        ["begin tx", r#"commit tx ["order 1"]"#, "drop tx"]
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_step_that_panics_after_the_finishing_step_ran_rolls_it_back() {
    quiet_expected_panics();
    let journal = Journal::default();
    let panics = StepFn::new("audit", |_parts, _needs| -> Result<(), HttpError> {
        panic!("the audit step panicked in audit")
    })
    .needs::<Tx>("tx");
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None))
            .step(panics)
            .route(orders(created).step("audit"))
    });
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(response.status(), 500);
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "internal server error" })
    );
    assert_eq!(journal.events(), ["begin tx", "rollback tx", "drop tx"]);
    assert_eq!(
        journal.outcome("tx").panic(),
        Some("the audit step panicked in audit")
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_later_step_that_rejects_is_named_in_the_outcome_and_the_tx_rolls_back() {
    let journal = Journal::default();
    let auth =
        green_tea::steps::Guard::new("auth", |parts, _needs| match parts.headers.get("x-user") {
            Some(_) => Ok(()),
            None => Err(HttpError::unauthorized("who are you?")),
        })
        .needs::<Tx>("tx");
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None))
            .step(auth)
            .route(orders(created).step("auth"))
    });
    let client = TestClient::new(app.clone());
    let response = client.post("/orders").send().await;
    assert_eq!(response.status(), 401);
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "who are you?" })
    );
    assert_eq!(journal.events(), ["begin tx", "rollback tx", "drop tx"]);
    let outcome = journal.outcome("tx");
    assert_eq!(outcome.rejected_by(), Some("auth"));
    assert_eq!(outcome.status(), 401);
    assert_eq!(outcome.error(), Some("who are you?"));

    let admitted = client.post("/orders").header("x-user", "ada").send().await;
    assert_eq!(admitted.status(), 201);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_commit_that_fails_turns_the_201_into_its_json_500_and_the_earlier_step_sees_it() {
    let journal = Journal::default();
    let app = app_with(&journal, |b| {
        b.step(tx_step("outer", Commit::Succeeds, None))
            .step(tx_step("tx", Commit::Fails, Some("outer")))
            .route(orders(created))
    });
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(
        response.status(),
        500,
        "never a 201 for a write that did not happen"
    );
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "commit failed" })
    );
    assert_eq!(
        journal.events(),
        [
            "begin outer",
            "begin tx",
            "commit tx failed",
            "drop tx",
            "rollback outer",
            "drop outer"
        ]
    );
    assert!(
        journal.outcome("tx").is_success(),
        "tx saw the handler's 201"
    );
    let outer = journal.outcome("outer");
    assert_eq!(outer.failed_finish(), Some("tx"));
    assert_eq!(outer.status(), 500);
    assert_eq!(outer.error(), Some("commit failed"));
    assert!(!outer.is_success());
    app.close().await.unwrap();
}

#[tokio::test]
async fn two_finishing_steps_finish_the_last_run_first() {
    let journal = Journal::default();
    let app = app_with(&journal, |b| {
        // Registered `tx` first: the run order is the needs', not the registration's.
        b.step(tx_step("tx", Commit::Succeeds, Some("outer")))
            .step(tx_step("outer", Commit::Succeeds, None))
            .route(orders(created))
    });
    let explain = app.explain("/orders").unwrap();
    let run: Vec<&str> = explain.routes[0]
        .steps
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(run, ["outer", "tx"]);
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(response.status(), 201);
    assert_eq!(
        journal.events(),
        [
            "begin outer",
            "begin tx",
            r#"commit tx ["order 1"]"#,
            "drop tx",
            "commit outer []",
            "drop outer"
        ]
    );
    assert!(journal.outcome("outer").is_success());
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_finish_that_panics_answers_a_json_500() {
    quiet_expected_panics();
    let journal = Journal::default();
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Panics, None))
            .route(orders(created))
    });
    let client = TestClient::new(app.clone());
    let response = client.post("/orders").send().await;
    assert_eq!(response.status(), 500);
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "internal server error" })
    );
    // The value was dropped by the unwinding finish.
    assert_eq!(journal.events(), ["begin tx", "drop tx"]);
    assert_eq!(client.post("/orders").send().await.status(), 500);
    app.close().await.unwrap();
}

/// Where the handler that keeps its transaction past its answer leaves the task holding it.
type Keeper = Arc<Mutex<Option<(tokio::task::JoinHandle<()>, oneshot::Sender<()>)>>>;

#[tokio::test]
async fn a_value_still_held_by_a_task_is_not_finished_answers_500_and_drops_with_the_task() {
    let journal = Journal::default();
    let keeper = Keeper::default();
    let kept = Arc::clone(&keeper);
    let route = Route::post("/orders", move |request: RequestContext| {
        let kept = Arc::clone(&kept);
        async move {
            let tx = request.need::<Tx>(0)?;
            let (release, released) = oneshot::channel::<()>();
            let task = tokio::spawn(async move {
                let _ = released.await;
                tx.write("late").await;
            });
            *kept.lock().unwrap() = Some((task, release));
            Ok::<_, HttpError>((StatusCode::CREATED, "created"))
        }
    })
    .needs::<Tx>("tx");
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None)).route(route)
    });
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(response.status(), 500);
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "internal server error" })
    );
    assert_eq!(
        journal.events(),
        ["begin tx"],
        "not finished, not dropped yet"
    );
    assert_eq!(journal.finished(), 0);

    let (task, release) = keeper.lock().unwrap().take().expect("the handler ran");
    release.send(()).unwrap();
    within("the task", task).await.unwrap();
    assert_eq!(
        journal.events(),
        ["begin tx", "drop tx"],
        "dropped with its last clone, never finished"
    );
    app.close().await.unwrap();
}

/// POST /orders whose handler says it started, then waits forever.
fn stuck_orders(started: Arc<Mutex<Option<oneshot::Sender<()>>>>) -> Route {
    Route::post("/orders", move |request: RequestContext| {
        let started = started.lock().unwrap().take();
        async move {
            let tx = request.need_ref::<Tx>(0)?;
            tx.write("order 1").await;
            if let Some(started) = started {
                let _ = started.send(());
            }
            std::future::pending::<()>().await;
            Ok::<_, HttpError>("never")
        }
    })
    .needs::<Tx>("tx")
}

#[tokio::test]
async fn a_request_whose_future_is_dropped_mid_handler_runs_no_finish_and_drops_the_value() {
    let journal = Journal::default();
    let (started, on_start) = oneshot::channel();
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None))
            .route(stuck_orders(Arc::new(Mutex::new(Some(started)))))
    });
    let request = Request::post("/orders").body(Body::empty()).unwrap();
    let mut answer = Box::pin(app.handle(request));
    tokio::select! {
        _ = &mut answer => panic!("the handler never answers"),
        started = on_start => started.unwrap(),
    }
    assert_eq!(journal.events(), ["begin tx"]);
    // The client goes away: its request's future is dropped.
    drop(answer);
    assert_eq!(journal.events(), ["begin tx", "drop tx"]);
    assert_eq!(
        journal.finished(),
        0,
        "no finish runs for an abandoned request"
    );
    within("close", app.close()).await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_client_that_gives_up_mid_handler_gets_no_finish_and_the_value_drops() {
    let journal = Journal::default();
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None))
            .route(stuck_orders(Arc::default()))
    });
    let client = TestClient::new(app.clone());
    // The paused clock jumps to the deadline once the handler is stuck.
    let gave_up = tokio::time::timeout(Duration::from_secs(5), client.post("/orders").send()).await;
    assert!(gave_up.is_err(), "the handler never answers");
    assert_eq!(journal.events(), ["begin tx", "drop tx"]);
    assert_eq!(journal.finished(), 0);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_route_layer_acting_after_the_finish_cannot_undo_it() {
    let journal = Journal::default();
    let route = orders(created).layer(MapResponseLayer::new(|mut response: Response| {
        // An answer chosen after the entry returned: the commit has happened.
        *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        response
    }));
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None)).route(route)
    });
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(response.status(), 503, "the client gets the layer's answer");
    assert_eq!(
        journal.events(),
        ["begin tx", r#"commit tx ["order 1"]"#, "drop tx"],
        "the finish saw the handler's 201 and committed"
    );
    assert_eq!(journal.outcome("tx").status(), 201);
    app.close().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_timeout_layer_firing_during_the_commit_answers_over_a_commit_already_sent() {
    let journal = Journal::default();
    let acknowledged = Arc::new(Notify::new());
    let route = orders(created).layer(TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        Duration::from_secs(1),
    ));
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::WaitsFor(acknowledged), None))
            .route(route)
    });
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(response.status(), 408, "the layer's answer");
    // The commit was sent and its finish dropped while it waited: a real database may
    // have committed; the client was told 408.
    assert_eq!(journal.events(), ["begin tx", "commit tx sent", "drop tx"]);
    assert!(journal.outcome("tx").is_success());
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_streamed_body_that_fails_after_the_head_was_finished_with_200() {
    let journal = Journal::default();
    let route = Route::get("/export", |request: RequestContext| async move {
        request.need_ref::<Tx>(0)?.write("export").await;
        let chunks = futures_util::stream::iter([
            Ok(bytes::Bytes::from_static(b"row 1\n")),
            Err(std::io::Error::other("the export broke off")),
        ]);
        Ok::<_, HttpError>(Body::from_stream(chunks))
    })
    .needs::<Tx>("tx");
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None)).route(route)
    });
    let request = Request::get("/export").body(Body::empty()).unwrap();
    let reply = app.handle(request).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(
        journal.events(),
        ["begin tx", r#"commit tx ["export"]"#, "drop tx"],
        "finished before the head was returned, the body still unread"
    );
    assert_eq!(journal.outcome("tx").status(), 200);
    let mut body = reply.into_body();
    let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
    assert_eq!(first, "row 1\n");
    let failed = body.frame().await.unwrap();
    assert!(failed.is_err(), "the stream's error comes after the head");
    assert_eq!(
        journal.finished(),
        1,
        "nothing runs again for the body's error"
    );
    drop(body);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_route_without_a_finishing_step_is_untouched_beside_one_that_finishes() {
    quiet_expected_panics();
    let journal = Journal::default();
    let plain = Route::get("/plain", |request: RequestContext| async move {
        let journal = request.need_ref::<Journal>(0)?;
        if request.parts().headers.contains_key("x-panic") {
            panic!("the plain handler panicked in plain");
        }
        journal.push("plain");
        Ok::<_, HttpError>("plain")
    })
    .needs::<Journal>("journal");
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None))
            .route(orders(created))
            .route(plain)
    });
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/plain").send().await.text(), "plain");
    let panicked = client.get("/plain").header("x-panic", "1").send().await;
    assert_eq!(panicked.status(), 500);
    assert_eq!(journal.events(), ["plain"], "no step ran, nothing finished");
    assert_eq!(client.post("/orders").send().await.status(), 201);
    assert_eq!(
        journal.events(),
        ["plain", "begin tx", r#"commit tx ["order 1"]"#, "drop tx"]
    );
    let explain = app.explain("/plain").unwrap();
    assert!(explain.routes[0].steps.is_empty());
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_finishing_step_in_a_module_finishes_its_routes_requests() {
    let journal = Journal::default();
    let shop = Module::new("shop")
        .step(tx_step("tx", Commit::Succeeds, None))
        .route(orders(created))
        .prefix("/shop");
    let app = app_with(&journal, |b| b.module(shop));
    let client = TestClient::new(app.clone());
    assert_eq!(client.post("/shop/orders").send().await.status(), 201);
    assert_eq!(
        client
            .post("/shop/orders")
            .header("x-answer", "conflict")
            .send()
            .await
            .status(),
        409
    );
    assert_eq!(
        journal.events(),
        [
            "begin tx",
            r#"commit tx ["order 1"]"#,
            "drop tx",
            "begin tx",
            "rollback tx",
            "drop tx"
        ]
    );
    let explain = app.explain("/shop/orders").unwrap();
    assert_eq!(explain.routes[0].steps[0].module.as_deref(), Some("shop"));
    // The module's explanation says so too.
    let module = app.explain_module("shop").unwrap();
    assert!(module.steps[0].finishes);
    assert!(!module.routes[0].finishes);
    let text = module.to_string();
    assert!(text.contains("\n    step `tx` (finishes)"), "{text}");
    app.close().await.unwrap();
}

#[tokio::test]
async fn an_override_of_the_steps_need_is_what_the_finishing_step_reads() {
    let real = Journal::default();
    let fake = Journal::default();
    let app = App::builder()
        .value("journal", real.clone())
        .override_value("journal", fake.clone())
        .step(tx_step("tx", Commit::Succeeds, None))
        .route(orders(created))
        .build()
        .unwrap();
    assert_eq!(
        TestClient::new(app.clone())
            .post("/orders")
            .send()
            .await
            .status(),
        201
    );
    assert!(real.events().is_empty());
    assert_eq!(
        fake.events(),
        ["begin tx", r#"commit tx ["order 1"]"#, "drop tx"]
    );
    app.close().await.unwrap();
}

/// A step by hand that provides two values, of which only the transaction finishes.
struct TxWithId;

impl Step for TxWithId {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new("tx")
            .provides::<String>("requestId")
            .provides::<Tx>("tx")
            .needs::<Journal>("journal")
    }

    fn run<'a>(&'a self, _parts: &'a mut Parts, needs: Needs<'a>) -> StepFuture<'a> {
        StepFuture::new(async move {
            let journal = needs
                .get_ref::<Journal>(0)
                .map_err(|_| HttpError::internal())?;
            Ok(Provided::one(String::from("req-1")).with(Tx::begin(
                "tx",
                journal,
                Commit::Succeeds,
            )))
        })
    }

    fn finishing(&self) -> Finishing {
        Finishing::none().value::<Tx>(1)
    }
}

#[tokio::test]
async fn a_step_impl_finishes_the_value_its_finishing_names() {
    let journal = Journal::default();
    let route = Route::post("/orders", |request: RequestContext| async move {
        let id = request.need_ref::<String>(1)?;
        request.need_ref::<Tx>(0)?.write(id).await;
        Ok::<_, HttpError>((StatusCode::CREATED, "created"))
    })
    .needs::<Tx>("tx")
    .needs::<String>("requestId");
    let app = app_with(&journal, |b| b.step(TxWithId).route(route));
    assert_eq!(
        TestClient::new(app.clone())
            .post("/orders")
            .send()
            .await
            .status(),
        201
    );
    assert_eq!(
        journal.events(),
        ["begin tx", r#"commit tx ["req-1"]"#, "drop tx"]
    );
    app.close().await.unwrap();
}

// The macro form: `#[step(..., finish)]` and a `#[route]` handler that needs `&Tx`.

#[step(provides = "tx", needs = ["journal"], finish)]
fn begin(journal: &Journal) -> Tx {
    Tx::begin("tx", journal, Commit::Succeeds)
}

#[step(provides = "failingTx", needs = ["journal"], finish)]
async fn begin_failing(journal: &Journal) -> Result<Tx, HttpError> {
    Ok(Tx::begin("failingTx", journal, Commit::Fails))
}

struct Shop;

#[route("/shop")]
impl Shop {
    #[post("/orders")]
    async fn create(#[needs("tx")] tx: &Tx) -> (StatusCode, &'static str) {
        tx.write("order 1").await;
        (StatusCode::CREATED, "created")
    }

    #[post("/conflicts")]
    async fn conflict(#[needs("tx")] tx: &Tx) -> Result<&'static str, HttpError> {
        tx.write("order 1").await;
        Err(HttpError::new(409, "order 1 exists"))
    }

    #[post("/refunds")]
    async fn refund(
        #[needs("failingTx")] tx: &Tx,
    ) -> Result<(StatusCode, &'static str), HttpError> {
        tx.write("refund 1").await;
        Ok((StatusCode::CREATED, "refunded"))
    }
}

fn macro_app(journal: &Journal) -> App {
    app_with(journal, |b| {
        b.step(begin::step())
            .step(begin_failing::step())
            .routes(Shop::routes())
    })
}

#[tokio::test]
async fn in_the_macro_form_a_2xx_commits_and_an_error_rolls_back() {
    let journal = Journal::default();
    let app = macro_app(&journal);
    let client = TestClient::new(app.clone());
    assert_eq!(client.post("/shop/orders").send().await.status(), 201);
    let conflict = client.post("/shop/conflicts").send().await;
    assert_eq!(conflict.status(), 409);
    assert_eq!(
        journal.events(),
        [
            "begin tx",
            r#"commit tx ["order 1"]"#,
            "drop tx",
            "begin tx",
            "rollback tx",
            "drop tx"
        ]
    );
    let outcomes = journal.outcomes.lock().unwrap().clone();
    assert_eq!(outcomes[0].1.status(), 201);
    assert_eq!(outcomes[1].1.status(), 409);
    assert_eq!(outcomes[1].1.error(), Some("order 1 exists"));
    app.close().await.unwrap();
}

#[tokio::test]
async fn in_the_macro_form_a_failed_commit_answers_its_500() {
    let journal = Journal::default();
    let app = macro_app(&journal);
    let response = TestClient::new(app.clone())
        .post("/shop/refunds")
        .send()
        .await;
    assert_eq!(response.status(), 500);
    assert_eq!(
        error_body(&response.text()),
        json!({ "error": "commit failed" })
    );
    assert_eq!(
        journal.events(),
        [
            "begin failingTx",
            "commit failingTx failed",
            "drop failingTx"
        ]
    );
    app.close().await.unwrap();
}

/// A step by hand whose finishing names the values `finishes` (index, as a `Tx`).
struct Misnamed {
    finishes: Vec<usize>,
}

impl Step for Misnamed {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new("tx")
            .provides::<String>("requestId")
            .provides::<Tx>("tx")
            .needs::<Journal>("journal")
    }

    fn run<'a>(&'a self, _parts: &'a mut Parts, _needs: Needs<'a>) -> StepFuture<'a> {
        StepFuture::ready(Err(HttpError::internal().into()))
    }

    fn finishing(&self) -> Finishing {
        self.finishes
            .iter()
            .fold(Finishing::none(), |f, &index| f.value::<Tx>(index))
    }
}

#[test]
fn a_finishing_that_names_a_value_the_step_does_not_provide_is_gt0021_at_build() {
    let err = App::builder()
        .step(Misnamed {
            finishes: vec![0, 1, 2],
        })
        .route(orders(created))
        .build()
        .unwrap_err();
    let problems: Vec<_> = err
        .problems()
        .iter()
        .map(|p| (p.code(), p.to_string()))
        .collect();
    // Every problem at once: the journal nobody provides, and the two wrong values (1 is right).
    assert_eq!(problems.len(), 3, "{err}");
    assert_eq!(problems[0].0, "GT0001");
    assert!(matches!(
        &err.problems()[1],
        green_tea::error::Problem::FinishingValue { index: 0, provides, .. } if provides.len() == 2
    ));
    assert!(
        problems[1]
            .1
            .starts_with("error[GT0021]: step `tx` (tests/http/finish.rs:"),
        "{}",
        problems[1].1
    );
    assert!(
        problems[1]
            .1
            .contains("finishes its value 0 as a `Tx`, but that value is `requestId: String`"),
        "{}",
        problems[1].1
    );
    assert!(
        problems[2]
            .1
            .starts_with("error[GT0021]: step `tx` (tests/http/finish.rs:"),
        "{}",
        problems[2].1
    );
    assert!(
        problems[2].1.contains(
            "finishes its value 2 (a `Tx`), but it provides 2 values: `requestId: String` (0), `tx: Tx` (1)"
        ),
        "{}",
        problems[2].1
    );
    assert!(problems[2].1.contains(
        "help: `Finishing::value::<T>(index)` names the step's provided values by position, from 0"
    ));
}

#[tokio::test]
async fn a_finishing_step_beside_the_client_address_step_still_finishes() {
    // The client's address is a step of its own, added first: the finishing step's place
    // among the app's steps moves by one.
    let journal = Journal::default();
    let route = Route::post("/orders", |request: RequestContext| async move {
        let _client = request.need_ref::<green_tea::extract::ClientAddr>(1)?;
        request.need_ref::<Tx>(0)?.write("order 1").await;
        Ok::<_, HttpError>((StatusCode::CREATED, "created"))
    })
    .needs::<Tx>("tx")
    .needs::<green_tea::extract::ClientAddr>("clientAddr");
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None)).route(route)
    });
    let response = TestClient::new(app.clone()).post("/orders").send().await;
    assert_eq!(response.status(), 201, "{}", response.text());
    assert_eq!(
        journal.events(),
        ["begin tx", r#"commit tx ["order 1"]"#, "drop tx"]
    );
    app.close().await.unwrap();
}

#[test]
fn explain_shows_which_steps_finish_in_every_rendering() {
    let journal = Journal::default();
    let audit = green_tea::steps::Guard::new("audit", |_parts, _needs| Ok(())).needs::<Tx>("tx");
    let app = app_with(&journal, |b| {
        b.step(tx_step("tx", Commit::Succeeds, None))
            .step(audit)
            .route(orders(created).step("audit"))
    });
    let explain = app.explain("/orders").unwrap();
    let steps = &explain.routes[0].steps;
    assert_eq!(
        steps
            .iter()
            .map(|s| (s.name.as_str(), s.finishes))
            .collect::<Vec<_>>(),
        [("tx", true), ("audit", false)]
    );

    let text = explain.to_string();
    assert!(text.contains("1. tx (finishes) -> tx: "), "{text}");
    assert!(text.contains("2. audit -> guard"), "{text}");

    let json = explain.to_json();
    let json_steps = &json["routes"][0]["steps"];
    assert_eq!(json_steps[0]["finishes"], json!(true));
    assert_eq!(json_steps[1]["finishes"], json!(false));

    let dot = explain.to_dot();
    assert!(dot.contains("step tx (finishes)"), "{dot}");
    assert!(!dot.contains("step audit (finishes)"), "{dot}");
    let mermaid = explain.to_mermaid();
    assert!(mermaid.contains("step tx (finishes)"), "{mermaid}");

    let svg = explain.to_svg();
    // Once in the box's tooltip, once as its line; only the transaction's box.
    assert_eq!(
        svg.matches("finishes with the request&#39;s outcome")
            .count(),
        2,
        "{svg}"
    );
    let page = app.explain_all().to_html();
    assert!(page.contains("finishes with the request"));
    assert!(
        page.contains("1. tx (finishes) -&gt; tx: "),
        "the page's text"
    );
}
