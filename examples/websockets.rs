//! WebSockets: an echo server, with axum's own `WebSocketUpgrade` extractor in a green-tea route.
//!
//! ```sh
//! cargo run --example websockets
//! websocat ws://127.0.0.1:3000/echo      # or any WebSocket client: each text comes back
//! ```
//!
//! The handler is the one you would write in axum. The one addition: the session outlives the
//! response (the `101 Switching Protocols`), so it keeps the request in flight, and ends when
//! the server starts to close; without that, shutdown would not know the session exists.

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use green_tea::prelude::*;
use green_tea::serve::InFlightGuard;
use std::sync::Arc;

/// What the echo says first, so that a greeting can come from the graph like anything else.
struct Greeting(String);

#[provider(provides = "greeting")]
fn greeting() -> Greeting {
    Greeting("connected: every text you send comes back".to_owned())
}

struct Echo;

#[route("/echo")]
impl Echo {
    #[get("/")]
    async fn upgrade(
        upgrade: WebSocketUpgrade,
        #[needs("greeting")] greeting: Arc<Greeting>,
        request: RequestContext,
    ) -> impl IntoResponse {
        let guard = request.keep_in_flight();
        upgrade.on_upgrade(move |socket| session(socket, greeting, guard))
    }
}

/// One client's session: the greeting, then each text or binary message sent back as it came.
async fn session(mut socket: WebSocket, greeting: Arc<Greeting>, guard: InFlightGuard) {
    if socket
        .send(Message::Text(greeting.0.clone().into()))
        .await
        .is_err()
    {
        return; // the client left already
    }
    loop {
        tokio::select! {
            message = socket.recv() => match message {
                Some(Ok(message @ (Message::Text(_) | Message::Binary(_)))) => {
                    if socket.send(message).await.is_err() {
                        break;
                    }
                }
                Some(Ok(_)) => {} // pings are answered by the library; a close ends recv()
                Some(Err(_)) | None => break,
            },
            () = guard.closing() => {
                // The server is shutting down: say goodbye properly.
                let _ = socket.send(Message::Close(None)).await;
                break;
            }
        }
    }
    drop(guard); // the session is over: close() need not wait for it any more
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = App::builder()
        .provider(greeting::provider())
        .routes(Echo::routes())
        .build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?; // Ctrl-C or SIGTERM: sessions close, then the app
    Ok(())
}
