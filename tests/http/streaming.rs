//! Streamed responses: server-sent events read event by event with `TestClient`'s
//! `send_streaming` and over loopback HTTP, and the handler's stream dropped when the client
//! goes away.

use crate::support;

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event, Sse};
use futures_util::Stream;
use green_tea::prelude::*;
use green_tea::test::TestClient;
use http_body_util::{BodyExt, Empty};
use support::http::{Server, within};
use tokio::sync::oneshot;

/// Says when it is dropped: the stream that holds it is gone.
struct DropGuard(Option<oneshot::Sender<()>>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        if let Some(dropped) = self.0.take() {
            let _ = dropped.send(());
        }
    }
}

/// Numbered events, without end, each `every` after the last (none: at once); the stream
/// holds `guard`.
fn ticks(
    guard: DropGuard,
    every: Option<Duration>,
) -> impl Stream<Item = Result<Event, Infallible>> + Send {
    futures_util::stream::unfold((guard, 1_u32), move |(guard, n)| async move {
        if let Some(every) = every {
            tokio::time::sleep(every).await;
        }
        let event = Event::default().event("tick").data(n.to_string());
        Some((Ok(event), (guard, n + 1)))
    })
}

/// Where the handler's stream reports its drop: one receiver per request.
type Drops = std::sync::Mutex<Vec<oneshot::Sender<()>>>;

struct Events;

#[route("/events")]
impl Events {
    #[get("/")]
    async fn ticks(
        #[needs("drops")] drops: &Drops,
        #[needs("every")] every: &Option<Duration>,
    ) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + use<>> {
        let dropped = drops.lock().unwrap().pop().expect("one sender per request");
        Sse::new(ticks(DropGuard(Some(dropped)), *every))
    }
}

fn app(every: Option<Duration>) -> (App, oneshot::Receiver<()>) {
    let (dropped, on_drop) = oneshot::channel();
    let app = App::builder()
        .value("drops", Drops::new(vec![dropped]))
        .value("every", every)
        .routes(Events::routes())
        .build()
        .unwrap();
    (app, on_drop)
}

#[tokio::test]
async fn three_events_then_the_client_drops_the_response_and_the_stream_is_dropped() {
    let (app, on_drop) = app(None);
    let client = TestClient::new(app.clone());
    let mut events = client.get("/events").send_streaming().await;
    assert_eq!(events.status(), 200);
    assert_eq!(events.header("content-type"), Some("text/event-stream"));
    for n in 1..=3 {
        let chunk = within("an event", events.chunk()).await.expect("an event");
        assert_eq!(chunk, format!("event: tick\ndata: {n}\n\n"));
    }
    drop(events);
    within("the stream's drop", on_drop)
        .await
        .expect("the guard is dropped, not forgotten");
    within("close", app.close()).await.unwrap();
}

#[tokio::test]
async fn over_loopback_a_client_that_disconnects_drops_the_stream() {
    let (app, on_drop) = app(Some(Duration::from_millis(5)));
    let server = Server::start(&app).await;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Empty<bytes::Bytes>>();
    let request = axum::http::Request::get(server.url("/events"))
        .body(Empty::new())
        .unwrap();
    let response = within("the head", client.request(request)).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut read = Vec::new();
    // Three events, whatever frames they arrive in.
    while read.windows(2).filter(|w| w == b"\n\n").count() < 3 {
        let frame = within("an event", body.frame()).await.unwrap().unwrap();
        read.extend_from_slice(&frame.into_data().unwrap());
    }
    let text = String::from_utf8(read).unwrap();
    assert!(
        text.starts_with(
            "event: tick\ndata: 1\n\nevent: tick\ndata: 2\n\nevent: tick\ndata: 3\n\n"
        ),
        "{text}"
    );
    // The client goes away: the connection closes, the server's next write fails, and the
    // handler's stream is dropped.
    drop(body);
    drop(client);
    within("the stream's drop", on_drop)
        .await
        .expect("the guard is dropped, not forgotten");
    server.stop().await.unwrap();
    app.close().await.unwrap();
}

#[tokio::test]
#[should_panic(expected = "the response body failed while it was read: the feed broke")]
async fn test_client_send_fails_on_a_broken_body_rather_than_reading_it_empty() {
    let app = App::builder()
        .route(Route::get("/feed", |_request: RequestContext| async {
            let chunks = [
                Ok(bytes::Bytes::from_static(b"first ")),
                Err(std::io::Error::other("the feed broke")),
            ];
            green_tea::body::Body::from_stream(futures_util::stream::iter(chunks))
        }))
        .build()
        .unwrap();
    TestClient::new(app).get("/feed").send().await;
}
