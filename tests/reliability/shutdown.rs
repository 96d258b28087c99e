//! Shutdown under load over loopback: ~200 requests stay in flight while `app.close()` runs.
//! Every request completes normally, or gets 503, or a connection error (refused, reset,
//! closed); none sees a disposed provider; `close()` returns within its bounds.
//!
//! Run with `--nocapture` for the figures: how many requests got each outcome.

use crate::support;

use std::collections::{BTreeMap, HashSet};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::body::Body;
use bytes::Bytes;
use green_tea::extract::RequestContext;
use green_tea::response::Response;
use green_tea::routing::Route;
use green_tea::steps::StepFn;
use green_tea::{App, HttpError, Json};
use http_body_util::{BodyExt, Full};
use hyper::Method;
use hyper::body::Frame;
use hyper::header::CONTENT_TYPE;
use serde_json::json;
#[cfg(feature = "http2")]
use support::http::http2_client;
use support::http::{Client, ClientError, Reply, Server, http1_client, until, within};
use support::{Log, Probe, Service};

const CLIENTS: usize = 200;
/// The most requests one client sends: bounds the whole test.
const PER_CLIENT: usize = 60;
/// Requests answered before `close()` starts.
const WARM_UP: usize = 1_000;
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
const DISPOSE_TIMEOUT: Duration = Duration::from_secs(1);
const PROVIDERS: u32 = 3;
/// How long each request holds its provider values after it got them, so that a close that
/// did not wait for it would dispose them under it.
const HOLD: Duration = Duration::from_millis(5);

/// What handlers, steps and response bodies saw.
#[derive(Default)]
struct Seen {
    /// Requests inside a handler (or streaming a body) right now.
    in_flight: AtomicUsize,
    /// Times a request found a provider's value already disposed. Must stay 0.
    used_after_dispose: AtomicUsize,
    /// The ids (`x-request-id`) of the requests that reached a handler: each must be answered.
    entered: Mutex<HashSet<usize>>,
}

impl Seen {
    fn check(&self, service: &Service) {
        if service.is_disposed() {
            self.used_after_dispose.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Leaves `in_flight` when dropped.
struct InFlight(Arc<Seen>);

impl InFlight {
    fn enter(seen: &Arc<Seen>, request: &RequestContext) -> InFlight {
        seen.in_flight.fetch_add(1, Ordering::SeqCst);
        let id = request
            .parts()
            .headers
            .get("x-request-id")
            .and_then(|v| v.to_str().ok()?.parse().ok())
            .expect("every request has an id");
        seen.entered.lock().unwrap().insert(id);
        InFlight(Arc::clone(seen))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A response body that waits [`HOLD`] before it sends, checking `db` each time it is polled:
/// the request is in flight until the body is sent.
struct CheckingBody {
    db: Arc<Service>,
    in_flight: InFlight,
    hold: Pin<Box<tokio::time::Sleep>>,
    sent: bool,
}

impl hyper::body::Body for CheckingBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.in_flight.0.check(&self.db);
        ready!(self.hold.as_mut().poll(cx));
        self.in_flight.0.check(&self.db);
        if self.sent {
            return Poll::Ready(None);
        }
        self.sent = true;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"streamed")))))
    }
}

/// `db <- cache <- sessions`; `GET /db` needs `db`; `GET /session` runs a step that needs
/// `sessions`, and needs `cache`; `POST /echo` needs `db` and reads a JSON body;
/// `GET /stream` answers with a body that reads `db` while it is sent.
fn app(log: &Log, seen: &Arc<Seen>) -> App {
    let (db_seen, session_seen, step_seen, echo_seen, stream_seen) = (
        Arc::clone(seen),
        Arc::clone(seen),
        Arc::clone(seen),
        Arc::clone(seen),
        Arc::clone(seen),
    );
    App::builder()
        .drain_timeout(DRAIN_TIMEOUT)
        .dispose_timeout(DISPOSE_TIMEOUT)
        .provider(Probe::new("db", &[], log))
        .provider(Probe::new("cache", &["db"], log))
        .provider(Probe::new("sessions", &["cache"], log))
        .step(
            StepFn::new("session", move |_, needs| {
                let sessions = needs.get::<Service>(0).map_err(|_| HttpError::internal())?;
                step_seen.check(&sessions);
                Ok(format!("session from {}", sessions.name))
            })
            .needs::<Service>("sessions"),
        )
        .route(
            Route::get("/db", move |request: RequestContext| {
                let seen = Arc::clone(&db_seen);
                async move {
                    let _in_flight = InFlight::enter(&seen, &request);
                    let db = request.need::<Service>(0)?;
                    seen.check(&db);
                    tokio::time::sleep(HOLD).await;
                    seen.check(&db);
                    Ok::<_, HttpError>(Json(json!({ "from": db.name })))
                }
            })
            .needs::<Service>("db"),
        )
        .route(
            Route::get("/session", move |request: RequestContext| {
                let seen = Arc::clone(&session_seen);
                async move {
                    let _in_flight = InFlight::enter(&seen, &request);
                    let cache = request.need::<Service>(0)?;
                    let session = request.need::<String>(1)?;
                    tokio::time::sleep(HOLD).await;
                    seen.check(&cache);
                    Ok::<_, HttpError>(Json(json!({ "from": *session })))
                }
            })
            .needs::<Service>("cache")
            .needs::<String>("session"),
        )
        .route(
            Route::post("/echo", move |mut request: RequestContext| {
                let seen = Arc::clone(&echo_seen);
                async move {
                    let _in_flight = InFlight::enter(&seen, &request);
                    let db = request.need::<Service>(0)?;
                    let body: serde_json::Value = request.json().await?;
                    tokio::time::sleep(HOLD).await;
                    seen.check(&db);
                    Ok::<_, HttpError>(Json(json!({ "from": body["from"] })))
                }
            })
            .needs::<Service>("db"),
        )
        .route(
            Route::get("/stream", move |request: RequestContext| {
                let seen = Arc::clone(&stream_seen);
                async move {
                    let body = CheckingBody {
                        db: request.need::<Service>(0)?,
                        in_flight: InFlight::enter(&seen, &request),
                        hold: Box::pin(tokio::time::sleep(HOLD)),
                        sent: false,
                    };
                    Ok::<_, HttpError>(Response::new(Body::new(body)))
                }
            })
            .needs::<Service>("db"),
        )
        .build()
        .expect("a valid graph")
}

/// The requests clients send, round robin, and the body each must answer with.
fn request(
    n: usize,
) -> (
    Method,
    &'static str,
    Option<serde_json::Value>,
    &'static str,
) {
    match n % 4 {
        0 => (Method::GET, "/db", None, r#"{"from":"db"}"#),
        1 => (
            Method::GET,
            "/session",
            None,
            r#"{"from":"session from sessions"}"#,
        ),
        2 => (
            Method::POST,
            "/echo",
            Some(json!({ "from": "echo" })),
            r#"{"from":"echo"}"#,
        ),
        _ => (Method::GET, "/stream", None, "streamed"),
    }
}

/// Sends request `id` (as `x-request-id`), with a JSON body if one is given, and reads the
/// whole response.
async fn send(
    client: &Client,
    id: usize,
    method: Method,
    url: &str,
    json: Option<&serde_json::Value>,
) -> Result<Reply, ClientError> {
    let request = hyper::Request::builder()
        .method(method)
        .uri(url)
        .header("x-request-id", id.to_string())
        .header(CONTENT_TYPE, "application/json");
    let body = Full::new(json.map(|v| Bytes::from(v.to_string())).unwrap_or_default());
    let response = client.request(request.body(body)?).await?;
    let (parts, body) = response.into_parts();
    Ok(Reply {
        status: parts.status,
        version: parts.version,
        headers: parts.headers,
        body: body.collect().await?.to_bytes(),
    })
}

/// What one request got.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Its normal response.
    Answered,
    /// 503 with the shutting-down body.
    Unavailable,
    /// The connection could not be made (the listener is gone).
    Refused,
    /// The connection was closed or reset under the request.
    Closed,
    /// Anything else: a failure.
    Wrong(String),
}

fn classify(reply: Result<Reply, ClientError>, expected: &str) -> Outcome {
    match reply {
        Ok(reply) if reply.status == 200 && reply.text() == expected => Outcome::Answered,
        Ok(reply)
            if reply.status == 503 && reply.text() == r#"{"error":"the app is shutting down"}"# =>
        {
            Outcome::Unavailable
        }
        Ok(reply) => Outcome::Wrong(format!("{} {}", reply.status, reply.text())),
        Err(error) => match error.downcast_ref::<hyper_util::client::legacy::Error>() {
            Some(e) if e.is_connect() => Outcome::Refused,
            _ => Outcome::Closed,
        },
    }
}

/// The tally of outcomes, and the requests answered so far.
#[derive(Default)]
struct Tally {
    outcomes: Mutex<BTreeMap<Outcome, usize>>,
    answered: AtomicUsize,
    /// Outcomes of requests that started after `close()` began.
    after_close: Mutex<BTreeMap<Outcome, usize>>,
    /// Each request's outcome, by id.
    by_id: Mutex<Vec<(usize, Outcome)>>,
}

/// A client that sends requests one after another until it has sent [`PER_CLIENT`], or until
/// two in a row were turned away after `close()` began.
async fn client_loop(client: Client, base: String, client_id: usize, tally: Arc<Tally>, app: App) {
    let mut turned_away = 0;
    for n in client_id..client_id + PER_CLIENT {
        let (method, path, json, expected) = request(n);
        let closing = app.is_closed();
        let id = n * CLIENTS + client_id;
        let outcome = classify(
            send(&client, id, method, &format!("{base}{path}"), json.as_ref()).await,
            expected,
        );
        tally.by_id.lock().unwrap().push((id, outcome.clone()));
        if outcome == Outcome::Answered {
            tally.answered.fetch_add(1, Ordering::SeqCst);
            turned_away = 0;
        } else if app.is_closed() {
            turned_away += 1;
        }
        if closing {
            *tally
                .after_close
                .lock()
                .unwrap()
                .entry(outcome.clone())
                .or_default() += 1;
        }
        *tally.outcomes.lock().unwrap().entry(outcome).or_default() += 1;
        if turned_away == 2 {
            break;
        }
    }
}

/// Drives [`CLIENTS`] clients against a served app, closes it once [`WARM_UP`] requests were
/// answered with many in flight, and checks every outcome.
async fn close_under_load(protocol: &str, client: Client) {
    let (log, seen) = (Log::default(), Arc::new(Seen::default()));
    let app = app(&log, &seen);
    let server = Server::start(&app).await;
    let tally = Arc::new(Tally::default());
    let base = server.url("");
    let clients: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let job = client_loop(
                client.clone(),
                base.clone(),
                i,
                Arc::clone(&tally),
                app.clone(),
            );
            tokio::spawn(job)
        })
        .collect();

    until("the warm-up, with requests in flight", || {
        tally.answered.load(Ordering::SeqCst) >= WARM_UP
            && seen.in_flight.load(Ordering::SeqCst) >= CLIENTS / 4
    })
    .await;
    let in_flight_at_close = seen.in_flight.load(Ordering::SeqCst);
    let answered_before_close = tally.answered.load(Ordering::SeqCst);
    let started = Instant::now();
    // A hang bound, not a timing assertion: the drain, each dispose, and a wide margin.
    let bound = DRAIN_TIMEOUT + DISPOSE_TIMEOUT * PROVIDERS + Duration::from_secs(10);
    let closed = tokio::time::timeout(bound, app.close())
        .await
        .unwrap_or_else(|_| panic!("close() did not return within {bound:?}"));
    let took = started.elapsed();
    closed.expect("a clean close: every request drained, every dispose succeeded");

    for client in clients {
        within("a client", client).await.expect("a client panicked");
    }
    server
        .finished()
        .await
        .expect("serve_until returns the clean close");

    let outcomes = tally.outcomes.lock().unwrap().clone();
    let after_close = tally.after_close.lock().unwrap().clone();
    let total: usize = outcomes.values().sum();
    println!(
        "\nshutdown under load ({protocol}): {CLIENTS} clients, {total} requests, \
         {answered_before_close} answered before close() began with {in_flight_at_close} in \
         handlers or bodies; close() returned in {} ms",
        took.as_millis()
    );
    println!("| outcome | requests | of which sent after close() began |\n|---|---|---|");
    for (outcome, count) in &outcomes {
        let late = after_close.get(outcome).copied().unwrap_or(0);
        println!("| {outcome:?} | {count} | {late} |");
    }
    let used_after_dispose = seen.used_after_dispose.load(Ordering::SeqCst);
    let entered = seen.entered.lock().unwrap().clone();
    let lost: Vec<(usize, Outcome)> = tally
        .by_id
        .lock()
        .unwrap()
        .iter()
        .filter(|(id, outcome)| entered.contains(id) && *outcome != Outcome::Answered)
        .cloned()
        .collect();
    println!(
        "| reached a handler, then not answered | {} | |",
        lost.len()
    );
    println!("| used a disposed provider | {used_after_dispose} | |");

    let wrong: Vec<_> = outcomes
        .keys()
        .filter(|o| matches!(o, Outcome::Wrong(_)))
        .collect();
    assert!(wrong.is_empty(), "unexpected answers: {wrong:?}");
    assert_eq!(used_after_dispose, 0, "requests used a disposed provider");
    assert!(
        lost.is_empty(),
        "requests that reached a handler were lost: {lost:?}"
    );
    assert_eq!(
        entered.len(),
        tally.answered.load(Ordering::SeqCst),
        "one answer per handler"
    );
    assert!(
        in_flight_at_close > 0,
        "close() must begin with requests in flight"
    );
    assert!(
        after_close.keys().any(|o| *o != Outcome::Answered),
        "some requests sent after close() began must be turned away: {after_close:?}"
    );
    assert_eq!(seen.in_flight.load(Ordering::SeqCst), 0);
    assert_eq!(log.names("provide"), ["db", "cache", "sessions"]);
    assert_eq!(
        log.names("dispose"),
        ["sessions", "cache", "db"],
        "each once, in reverse"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_under_load_over_http1_loses_no_request_and_uses_no_disposed_provider() {
    close_under_load("HTTP/1.1, a connection per client", http1_client()).await;
}

#[cfg(feature = "http2")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_under_load_over_http2_loses_no_request_and_uses_no_disposed_provider() {
    close_under_load(
        "HTTP/2, clients multiplexed on one connection",
        http2_client(),
    )
    .await;
}
