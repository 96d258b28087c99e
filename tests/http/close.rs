//! `close()` while requests are in flight: it drains them before disposing anything, bounds the
//! drain with a timeout, and answers late requests with 503.

use crate::support;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;

use green_tea::error::{ClosePart, FailureCause};
use green_tea::extract::RequestContext;
use green_tea::response::Response;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{App, Error, HttpError};
use hyper::Method;
use hyper::body::Frame;
use serde_json::json;
use support::http::{Gate, Server, http1_client, join_all, spawn_send, until, within};
use support::{Log, Probe, Service};

/// What the handlers saw.
#[derive(Default)]
struct Seen {
    entered: AtomicUsize,
    finished: AtomicUsize,
    disposed: AtomicUsize,
}

impl Seen {
    fn entered(&self) -> usize {
        self.entered.load(Ordering::SeqCst)
    }

    /// Counts each of `services` that is already disposed.
    fn check(&self, services: &[&Service]) {
        for service in services {
            if service.is_disposed() {
                self.disposed.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
}

/// A response body that sends one chunk once the gate opens, checking `db` when it does.
struct GatedBody {
    opened: Pin<Box<dyn Future<Output = ()> + Send>>,
    db: Arc<Service>,
    seen: Arc<Seen>,
    log: Log,
    sent: bool,
}

impl hyper::body::Body for GatedBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.sent {
            return Poll::Ready(None);
        }
        ready!(self.opened.as_mut().poll(cx));
        self.seen.check(&[&self.db]);
        self.log.push("body sent");
        self.sent = true;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"streamed")))))
    }
}

/// `GET /slow` (needs `db` and `cache`, waits for the gate), `GET /fast` (needs `db`),
/// `GET /hang` (needs `db`, never finishes) and `GET /stream` (needs `db`, answers at once
/// with a body that waits for the gate).
fn app(log: &Log, gate: &Gate, seen: &Arc<Seen>, drain_timeout: Duration) -> App {
    let (slow_gate, slow_seen, fast_seen, hang_seen) = (
        gate.clone(),
        Arc::clone(seen),
        Arc::clone(seen),
        Arc::clone(seen),
    );
    let (stream_gate, stream_seen, stream_log) = (gate.clone(), Arc::clone(seen), log.clone());
    App::builder()
        .provider(Probe::new("db", &[], log))
        .provider(Probe::new("cache", &["db"], log))
        .drain_timeout(drain_timeout)
        .route(
            Route::get("/slow", move |request: RequestContext| {
                let (gate, seen) = (slow_gate.clone(), Arc::clone(&slow_seen));
                async move {
                    let db = request.need::<Service>(0)?;
                    let cache = request.need::<Service>(1)?;
                    seen.check(&[&db, &cache]);
                    seen.entered.fetch_add(1, Ordering::SeqCst);
                    gate.pass().await;
                    // Give a close that did not wait every chance to dispose under us.
                    for _ in 0..10 {
                        tokio::task::yield_now().await;
                        seen.check(&[&db, &cache]);
                    }
                    seen.finished.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, HttpError>("done")
                }
            })
            .needs::<Service>("db")
            .needs::<Service>("cache"),
        )
        .route(
            Route::get("/fast", move |request: RequestContext| {
                let seen = Arc::clone(&fast_seen);
                async move {
                    seen.check(&[&*request.need::<Service>(0)?]);
                    Ok::<_, HttpError>("fast")
                }
            })
            .needs::<Service>("db"),
        )
        .route(
            Route::get("/hang", move |request: RequestContext| {
                let seen = Arc::clone(&hang_seen);
                async move {
                    let _db = request.need::<Service>(0)?;
                    seen.entered.fetch_add(1, Ordering::SeqCst);
                    std::future::pending::<()>().await;
                    Ok::<_, HttpError>("never")
                }
            })
            .needs::<Service>("db"),
        )
        .route(
            Route::get("/stream", move |request: RequestContext| {
                let (gate, seen, log) = (
                    stream_gate.clone(),
                    Arc::clone(&stream_seen),
                    stream_log.clone(),
                );
                async move {
                    let body = GatedBody {
                        opened: Box::pin(async move { gate.pass().await }),
                        db: request.need::<Service>(0)?,
                        seen: Arc::clone(&seen),
                        log,
                        sent: false,
                    };
                    seen.entered.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, HttpError>(Response::new(Body::new(body)))
                }
            })
            .needs::<Service>("db"),
        )
        .build()
        .expect("a valid graph")
}

const IN_FLIGHT: usize = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_drains_requests_in_flight_before_disposing() {
    let (log, gate, seen) = (Log::default(), Gate::new(), Arc::new(Seen::default()));
    let app = app(&log, &gate, &seen, Duration::from_secs(30));
    let server = Server::start(&app).await;
    let listener = server.listener.clone();
    let client = http1_client();

    let slow: Vec<_> = (0..IN_FLIGHT)
        .map(|_| spawn_send(&client, Method::GET, server.url("/slow"), None))
        .collect();
    until("every request is in its handler", || {
        seen.entered() == IN_FLIGHT
    })
    .await;

    let closing = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    until("close() has begun", || app.is_closed()).await;

    // Requests that arrive now are turned away: the listener is gone, or the app says 503.
    let late_client = http1_client();
    let late: Vec<_> = (0..10)
        .map(|_| spawn_send(&late_client, Method::GET, server.url("/fast"), None))
        .collect();
    // A connection error is fine too: only answers are checked.
    for reply in join_all(late).await.into_iter().flatten() {
        assert_eq!(reply.status, 503, "a late request: {}", reply.text());
        assert_eq!(reply.json(), json!({ "error": "the app is shutting down" }));
    }

    // The handlers still hold the gate, so nothing may be disposed yet.
    assert!(
        !closing.is_finished(),
        "close() returned with {IN_FLIGHT} requests in flight"
    );
    assert!(log.names("dispose").is_empty(), "{:?}", log.events());

    gate.open();
    for reply in join_all(slow).await {
        let reply = reply.expect("a request in flight is answered, not cut off");
        assert_eq!(
            (reply.status.as_u16(), reply.text()),
            (200, "done".to_owned())
        );
    }
    within("close()", closing)
        .await
        .unwrap()
        .expect("a clean close");
    server.finished().await.expect("serve_until returns Ok");

    assert_eq!(seen.finished.load(Ordering::SeqCst), IN_FLIGHT);
    assert_eq!(
        seen.disposed.load(Ordering::SeqCst),
        0,
        "no handler saw a disposed provider"
    );
    assert_eq!(log.names("provide"), ["db", "cache"]);
    assert_eq!(log.names("dispose"), ["cache", "db"]);
    assert!(!listener.is_open().await, "the server stopped accepting");
}

#[tokio::test]
async fn requests_after_close_began_get_503() {
    let (log, gate, seen) = (Log::default(), Gate::new(), Arc::new(Seen::default()));
    let app = app(&log, &gate, &seen, Duration::from_secs(30));
    let client = TestClient::new(app.clone());

    let slow = tokio::spawn(client.get("/slow").send());
    until("the request is in its handler", || seen.entered() == 1).await;
    let closing = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    until("close() has begun", || app.is_closed()).await;

    let late = client.get("/fast").send().await;
    assert_eq!(late.status(), 503);
    assert_eq!(
        late.json::<serde_json::Value>(),
        json!({ "error": "the app is shutting down" })
    );
    assert!(
        !closing.is_finished(),
        "close() waits for the request in flight"
    );

    gate.open();
    let slow = within("GET /slow", slow).await.unwrap();
    assert_eq!(
        (slow.status().as_u16(), slow.text()),
        (200, "done".to_owned())
    );
    within("close()", closing).await.unwrap().unwrap();
    assert_eq!(log.names("dispose"), ["cache", "db"]);
    assert_eq!(seen.disposed.load(Ordering::SeqCst), 0);
}

/// The drain failure in `error`, which must be the only failure.
fn only_drain_failure(failures: &[green_tea::error::CloseFailure]) -> (usize, Duration) {
    match failures {
        [failure] => match (&failure.part, &failure.cause) {
            (ClosePart::Drain { in_flight }, FailureCause::TimedOut(after)) => (*in_flight, *after),
            other => panic!("expected a timed-out drain, got {other:?}"),
        },
        other => panic!("expected one failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_request_past_the_drain_timeout_is_reported_and_providers_are_still_disposed() {
    let (log, gate, seen) = (Log::default(), Gate::new(), Arc::new(Seen::default()));
    let drain = Duration::from_millis(100);
    let app = app(&log, &gate, &seen, drain);
    let hanging = tokio::spawn(TestClient::new(app.clone()).get("/hang").send());
    until("the request is in its handler", || seen.entered() == 1).await;

    let error = within("close()", app.close())
        .await
        .expect_err("a request never finished");
    assert_eq!(only_drain_failure(&error.failures), (1, drain));
    assert_eq!(log.names("dispose"), ["db"], "disposed anyway");
    let again = app.close().await.expect_err("close() is idempotent");
    assert_eq!(again.failures.len(), 1);
    hanging.abort();
}

#[tokio::test]
async fn serve_until_reports_the_drain_timeout() {
    let (log, gate, seen) = (Log::default(), Gate::new(), Arc::new(Seen::default()));
    let drain = Duration::from_millis(100);
    let app = app(&log, &gate, &seen, drain);
    let server = Server::start(&app).await;
    let hanging = spawn_send(&http1_client(), Method::GET, server.url("/hang"), None);
    until("the request is in its handler", || seen.entered() == 1).await;

    match server.stop().await {
        Err(Error::Close(error)) => assert_eq!(only_drain_failure(&error.failures), (1, drain)),
        other => panic!("expected the drain timeout, got {other:?}"),
    }
    assert!(app.is_closed());
    assert_eq!(log.names("dispose"), ["db"]);
    hanging.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_waits_for_response_bodies_still_streaming() {
    let (log, gate, seen) = (Log::default(), Gate::new(), Arc::new(Seen::default()));
    let app = app(&log, &gate, &seen, Duration::from_secs(30));
    let server = Server::start(&app).await;
    let streaming = spawn_send(&http1_client(), Method::GET, server.url("/stream"), None);
    until("the handler returned its streaming response", || {
        seen.entered() == 1
    })
    .await;

    let mut closing = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    until("close() has begun", || app.is_closed()).await;
    // A correct close() cannot finish here, however long it is given: the body is still
    // being sent. The bound only keeps a correct run short.
    let early = tokio::time::timeout(Duration::from_millis(300), &mut closing).await;
    assert!(
        early.is_err(),
        "close() finished while a response body was still streaming: {early:?}, {:?}",
        log.events()
    );

    gate.open();
    let reply = within("GET /stream", streaming).await.unwrap().unwrap();
    assert_eq!(
        (reply.status.as_u16(), reply.text()),
        (200, "streamed".to_owned())
    );
    within("close()", closing).await.unwrap().unwrap();
    server.finished().await.unwrap();
    assert_eq!(
        seen.disposed.load(Ordering::SeqCst),
        0,
        "the body saw a disposed db"
    );
    assert_eq!(log.events(), ["provide db", "body sent", "dispose db"]);
}

/// As `Container::close`: on a runtime without timers, `App::close` cannot bound its drain,
/// and its error quotes tokio's own message (not the task's wrapper around it).
#[test]
fn close_on_a_runtime_without_timers_is_an_error_that_says_so() {
    let error = support::runtime_without_timers().block_on(async {
        let app = App::builder().build().unwrap();
        app.close()
            .await
            .expect_err("no timers to bound the drain with")
    });
    support::assert_timers_disabled(&error);
}
