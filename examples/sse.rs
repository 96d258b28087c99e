//! Server-sent events: a tiny chat room. `GET /events` streams every message posted to
//! `POST /messages` as a `text/event-stream`, through axum's `Sse` in a green-tea route.
//!
//! ```sh
//! cargo run --example sse
//! curl -N http://127.0.0.1:3000/events                # leave it open, then in another shell:
//! curl -H 'content-type: application/json' -d '{"text":"tea is ready"}' http://127.0.0.1:3000/messages
//! ```
//!
//! In axum the room would sit in `State`; here it is a provider, built once and shared by every
//! request that needs it.

use std::convert::Infallible;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};
use green_tea::prelude::*;
use serde::Deserialize;
use std::sync::Arc;
use tokio::sync::broadcast;

/// The room: every subscriber gets every message sent after it joined.
struct Room(broadcast::Sender<String>);

#[provider(provides = "room")]
fn room() -> Room {
    Room(broadcast::channel(64).0) // a subscriber more than 64 messages behind skips ahead
}

/// The body of `POST /messages`.
#[derive(Deserialize)]
struct Message {
    text: String,
}

struct Chat;

#[route("/")]
impl Chat {
    /// One event stream per client: a `joined` event at once, then a `message` event per post.
    /// The room is taken as `Arc<Room>` (not `&Room`) so that the stream can own it.
    #[get("/events")]
    async fn events(
        #[needs("room")] room: Arc<Room>,
        request: RequestContext,
    ) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send> {
        let joined = Event::default().event("joined").data("welcome to the room");
        let messages = futures_util::stream::unfold(room.0.subscribe(), |mut inbox| async move {
            loop {
                match inbox.recv().await {
                    Ok(text) => return Some((Event::default().event("message").data(text), inbox)),
                    Err(broadcast::error::RecvError::Lagged(_)) => continue, // too slow: skip
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        });
        // An event stream never ends by itself. Keep the request in flight and end the stream
        // when the server starts to close (Ctrl-C, SIGTERM), so shutdown does not wait for the
        // drain timeout on clients that stay connected.
        let guard = request.keep_in_flight();
        let closing = async move { guard.closing().await };
        let events = futures_util::stream::once(async { joined })
            .chain(messages)
            .take_until(closing)
            .map(Ok);
        Sse::new(events).keep_alive(KeepAlive::default()) // a comment line every 15 s of quiet
    }

    /// Posts a message to everyone listening: 202, and how many streams it reached.
    #[post("/messages")]
    async fn post(
        #[body] message: Message,
        #[needs("room")] room: &Room,
    ) -> (StatusCode, Json<serde_json::Value>) {
        let listeners = room.0.send(message.text).unwrap_or(0); // nobody listening: 0
        (
            StatusCode::ACCEPTED,
            Json(serde_json::json!({ "listeners": listeners })),
        )
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = App::builder()
        .provider(room::provider())
        .routes(Chat::routes())
        .build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?; // Ctrl-C or SIGTERM: the streams end, then close
    Ok(())
}
