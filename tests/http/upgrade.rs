//! Work that outlives its response: an upgraded connection (the way a WebSocket session runs)
//! and a spawned task. Each holds `RequestContext::keep_in_flight()`, so `close()` waits for it
//! before disposing the providers it uses, and tells it when to wind down.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use green_tea::error::ClosePart;
use green_tea::extract::RequestContext;
use green_tea::http::StatusCode;
use green_tea::response::{IntoResponse, Response};
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{App, HttpError};
use support::http::{Server, within};
use support::raw::{Part, connect, send};
use support::{Log, Probe, Service};

/// `GET /echo`: upgrades to a line protocol that echoes what it reads and, once the app
/// closes, says `bye (db disposed: false)` and ends. It needs `db` and uses it to the end.
fn echo_app(log: &Log) -> App {
    let session_log = log.clone();
    App::builder()
        .provider(Probe::new("db", &[], log))
        .route(
            Route::get("/echo", move |mut request: RequestContext| {
                let log = session_log.clone();
                async move {
                    let db = request.need::<Service>(0)?;
                    let upgrade = request
                        .parts_mut()
                        .extensions
                        .remove::<OnUpgrade>()
                        .ok_or_else(|| HttpError::bad_request("not an upgrade request"))?;
                    let guard = request.keep_in_flight();
                    tokio::spawn(async move {
                        let Ok(upgraded) = upgrade.await else { return };
                        let mut io = TokioIo::new(upgraded);
                        let mut buf = [0_u8; 64];
                        loop {
                            tokio::select! {
                                read = io.read(&mut buf) => match read {
                                    Ok(0) | Err(_) => break,
                                    Ok(n) => {
                                        let _ = io.write_all(&buf[..n]).await;
                                    }
                                },
                                () = guard.closing() => {
                                    // Winding down takes a while (a close frame, a flush):
                                    // `db` must still be there at the end of it.
                                    tokio::time::sleep(Duration::from_millis(50)).await;
                                    let bye = format!("bye (db disposed: {})", db.is_disposed());
                                    let _ = io.write_all(bye.as_bytes()).await;
                                    log.push("session ended");
                                    break;
                                }
                            }
                        }
                        drop(guard);
                    });
                    let mut response = Response::new(Body::empty());
                    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
                    let headers = response.headers_mut();
                    headers.insert("connection", "upgrade".parse().unwrap());
                    headers.insert("upgrade", "echo".parse().unwrap());
                    Ok::<_, HttpError>(response)
                }
            })
            .needs::<Service>("db"),
        )
        .build()
        .expect("a valid graph")
}

/// Reads until `want` bytes came (or the connection ended).
async fn read_exactly(stream: &mut tokio::net::TcpStream, want: usize) -> String {
    let mut seen = Vec::new();
    let mut buf = [0_u8; 256];
    while seen.len() < want {
        match within("the session's bytes", stream.read(&mut buf)).await {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

#[tokio::test]
async fn an_upgraded_session_is_served_and_close_waits_for_it_before_disposing() {
    let log = Log::default();
    let app = echo_app(&log);
    let server = Server::start(&app).await;
    let mut stream = connect(server.addr).await;
    let upgrade =
        "GET /echo HTTP/1.1\r\nhost: test\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\n";
    send(&mut stream, &[Part::text(upgrade)]).await;
    let head = read_exactly(&mut stream, "HTTP/1.1 101".len()).await;
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    // The rest of the 101 head, then the echo.
    let mut rest = head.clone();
    while !rest.contains("\r\n\r\n") {
        rest.push_str(&read_exactly(&mut stream, 1).await);
    }
    send(&mut stream, &[Part::text("ping")]).await;
    assert_eq!(read_exactly(&mut stream, 4).await, "ping");

    // Closing: the session hears of it while `db` is still there, and only then is `db`
    // disposed.
    within("server.stop()", server.stop())
        .await
        .expect("a clean close: the session ended within the drain timeout");
    assert_eq!(
        read_exactly(&mut stream, "bye (db disposed: false)".len()).await,
        "bye (db disposed: false)"
    );
    let events = log.events();
    let ended = events.iter().position(|e| e == "session ended");
    let disposed = events.iter().position(|e| e == "dispose db");
    assert!(
        matches!((ended, disposed), (Some(e), Some(d)) if e < d),
        "the session ended before db was disposed: {events:?}"
    );
}

#[tokio::test]
async fn a_guard_never_dropped_holds_close_only_until_the_drain_timeout() {
    let kept = Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = Arc::clone(&kept);
    let app = App::builder()
        .drain_timeout(Duration::from_millis(200))
        .route(Route::post("/forever", move |request: RequestContext| {
            // Kept, never dropped: a task that ignores `closing()`.
            keep.lock().unwrap().push(request.keep_in_flight());
            async { "accepted" }
        }))
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(client.post("/forever").send().await.text(), "accepted");
    let error = within("close", app.close())
        .await
        .expect_err("the drain timed out");
    assert!(
        matches!(
            error.failures[..],
            [ref failure] if matches!(failure.part, ClosePart::Drain { in_flight: 1 })
        ),
        "{error}"
    );
    let guards = kept.lock().unwrap();
    assert!(guards[0].is_closing());
}

#[tokio::test]
async fn a_guard_made_while_closing_is_still_waited_for() {
    let log = Log::default();
    let (entered, gate) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let (handler_entered, handler_gate, task_log) =
        (Arc::clone(&entered), Arc::clone(&gate), log.clone());
    let app = App::builder()
        .route(Route::post("/late", move |request: RequestContext| {
            let (entered, gate, log) = (
                Arc::clone(&handler_entered),
                Arc::clone(&handler_gate),
                task_log.clone(),
            );
            async move {
                // In flight when close() begins; only then does it ask for the guard.
                entered.notify_one();
                gate.notified().await;
                let guard = request.keep_in_flight();
                assert!(guard.is_closing());
                tokio::spawn(async move {
                    tokio::task::yield_now().await;
                    log.push("late work done");
                    drop(guard);
                });
                "accepted"
            }
        }))
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let request = tokio::spawn(async move { client.post("/late").send().await.text() });
    within("the handler to start", entered.notified()).await;
    let close = tokio::spawn({
        let app = app.clone();
        async move { app.close().await }
    });
    support::http::until("close() to begin", || app.is_closed()).await;
    gate.notify_one();
    assert_eq!(within("the request", request).await.unwrap(), "accepted");
    within("close", close)
        .await
        .unwrap()
        .expect("a clean close");
    assert_eq!(log.events(), ["late work done"]);
}

/// `GET /ws`: axum's `WebSocketUpgrade` extractor in a green-tea route. Echoes text; on close,
/// says `bye (db disposed: false)` and closes the socket.
fn websocket_app(log: &Log) -> App {
    use axum::extract::ws::{Message, WebSocketUpgrade};
    App::builder()
        .provider(Probe::new("db", &[], log))
        .route(
            Route::get("/ws", |mut request: RequestContext| async move {
                let upgrade = request.extract::<WebSocketUpgrade>().await?;
                let db = request
                    .need::<Service>(0)
                    .map_err(IntoResponse::into_response)?;
                let guard = request.keep_in_flight();
                Ok::<_, Response>(upgrade.on_upgrade(move |mut socket| async move {
                    loop {
                        tokio::select! {
                            message = socket.recv() => match message {
                                Some(Ok(Message::Text(text))) => {
                                    let _ = socket.send(Message::Text(text)).await;
                                }
                                Some(Ok(_)) => {}
                                _ => break,
                            },
                            () = guard.closing() => {
                                tokio::time::sleep(Duration::from_millis(50)).await;
                                let bye = format!("bye (db disposed: {})", db.is_disposed());
                                let _ = socket.send(Message::Text(bye.into())).await;
                                let _ = socket.send(Message::Close(None)).await;
                                break;
                            }
                        }
                    }
                    drop(guard);
                }))
            })
            .needs::<Service>("db"),
        )
        .build()
        .expect("a valid graph")
}

#[tokio::test]
async fn a_websocket_through_axums_extractor_is_served_and_closed_before_its_providers() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let log = Log::default();
    let app = websocket_app(&log);
    let server = Server::start(&app).await;
    let url = format!("ws://{}/ws", server.addr);
    let (mut socket, _) = within(
        "the WebSocket handshake",
        tokio_tungstenite::connect_async(url),
    )
    .await
    .expect("a WebSocket");
    socket.send(Message::text("hello")).await.expect("sent");
    let echo = within("the echo", socket.next()).await;
    assert_eq!(
        echo.expect("a message")
            .expect("a frame")
            .into_text()
            .unwrap()
            .as_str(),
        "hello"
    );

    within("server.stop()", server.stop())
        .await
        .expect("a clean close: the session ended within the drain timeout");
    let bye = within("the goodbye", socket.next()).await;
    assert_eq!(
        bye.expect("a message")
            .expect("a frame")
            .into_text()
            .unwrap()
            .as_str(),
        "bye (db disposed: false)"
    );
    assert_eq!(log.names("dispose"), ["db"]);
}
