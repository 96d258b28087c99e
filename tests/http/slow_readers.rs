//! Clients that stop reading their response, over loopback: the server cuts the connection
//! after the write timeout (and the request leaves flight, so `close()` is not held up), while
//! a client that reads gets its whole response, however large. Over HTTP/2 a client can also
//! stop a response by granting its stream no flow-control window, with the socket free: that
//! is cut the same way.

use crate::support;

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use hyper::body::Frame;
use tokio::io::AsyncReadExt;

use green_tea::extract::RequestContext;
use green_tea::response::Response;
use green_tea::routing::Route;
use green_tea::serve::Limits;
use green_tea::{App, AppBuilder};
use http_body_util::StreamBody;
use support::http::{Server, until, within};
#[cfg(feature = "http2")]
use support::http::{get, http2_client};
use support::raw::{Part, connect, send};

const MIB: usize = 1 << 20;
/// One chunk of the response; far more of them than the loopback socket buffers hold.
static ZEROS: [u8; MIB] = [0; MIB];
const CHUNKS: usize = 256;

/// A response body of `CHUNKS` MiB of zeros that says when it is dropped (sent or abandoned).
struct Zeros {
    left: usize,
    dropped: Arc<AtomicBool>,
}

impl hyper::body::Body for Zeros {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        self.left -= 1;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&ZEROS)))))
    }
}

impl Drop for Zeros {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

/// `GET /big`: `CHUNKS` MiB, streamed; `GET /some`: `SOME` MiB. Every body they made sets
/// `dropped` when it goes. `GET /quiet`: a chunk, a pause of `QUIET` (longer than the write
/// timeouts the tests set), another chunk.
fn app(write_timeout: Duration, dropped: &Arc<AtomicBool>) -> App {
    app_draining(write_timeout, App::builder(), dropped)
}

/// [`app`], built on `builder` (a drain timeout, ...).
fn app_draining(write_timeout: Duration, builder: AppBuilder, dropped: &Arc<AtomicBool>) -> App {
    let mut limits = Limits::default();
    limits.response_write_timeout = write_timeout;
    let zeros = |chunks: usize| {
        let dropped = Arc::clone(dropped);
        move |_: RequestContext| {
            let body = Zeros {
                left: chunks,
                dropped: Arc::clone(&dropped),
            };
            async move { Response::new(Body::new(body)) }
        }
    };
    builder
        .limits(limits)
        .route(Route::get("/big", zeros(CHUNKS)))
        .route(Route::get("/some", zeros(SOME)))
        .route(Route::get("/quiet", |_: RequestContext| async {
            let chunks = futures_util::stream::unfold(0, |sent| async move {
                match sent {
                    0 => {}
                    1 => tokio::time::sleep(QUIET).await,
                    _ => return None,
                }
                Some((
                    Ok::<_, Infallible>(Frame::data(Bytes::from_static(b"tick\n"))),
                    sent + 1,
                ))
            });
            Response::new(Body::new(StreamBody::new(chunks)))
        }))
        .build()
        .expect("a valid graph")
}

/// The size of `GET /some`, in MiB: more than HTTP/2's windows, less than a slow test.
const SOME: usize = 16;
/// How long `GET /quiet` pauses between its chunks.
const QUIET: Duration = Duration::from_secs(1);

const REQUEST: &str = "GET /big HTTP/1.1\r\nhost: test\r\n\r\n";

/// Reads until the server closes, up to a bound; how many bytes came.
async fn read_to_close(stream: &mut tokio::net::TcpStream) -> usize {
    let mut buf = vec![0_u8; 64 << 10];
    let mut total = 0;
    loop {
        match within("the server to close", stream.read(&mut buf)).await {
            Ok(0) | Err(_) => return total,
            Ok(read) => total += read,
        }
    }
}

#[tokio::test]
async fn a_client_that_stops_reading_is_cut_off_after_the_write_timeout() {
    let dropped = Arc::new(AtomicBool::new(false));
    let app = app(Duration::from_millis(200), &dropped);
    let server = Server::start(&app).await;
    let mut stream = connect(server.addr).await;
    send(&mut stream, &[Part::text(REQUEST)]).await;
    // Nothing read: the socket buffers fill, the server's writes wait, and after the write
    // timeout the connection is dropped with its response.
    until("the abandoned response to be dropped", || {
        dropped.load(Ordering::SeqCst)
    })
    .await;
    let received = read_to_close(&mut stream).await;
    assert!(
        received < CHUNKS * MIB,
        "the whole response arrived ({received} bytes): the connection was not cut"
    );
    // The request left flight: close() has nothing to wait for.
    within("server.stop()", server.stop())
        .await
        .expect("a clean close");
}

#[tokio::test]
async fn a_client_that_reads_gets_the_whole_response() {
    let dropped = Arc::new(AtomicBool::new(false));
    // Generous: this client reads as fast as it can; the timeout is not what is tested.
    let app = app(Duration::from_secs(5), &dropped);
    let server = Server::start(&app).await;
    let mut stream = connect(server.addr).await;
    let request = "GET /big HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n";
    send(&mut stream, &[Part::text(request)]).await;
    let received = read_to_close(&mut stream).await;
    assert!(
        received > CHUNKS * MIB,
        "{received} bytes: the response ({} bytes of body) was cut",
        CHUNKS * MIB
    );
    assert!(dropped.load(Ordering::SeqCst));
    server.stop().await.expect("a clean close");
}

#[cfg(feature = "http2")]
#[tokio::test]
async fn an_http2_stream_given_no_window_does_not_hold_close_until_the_drain_timeout() {
    let dropped = Arc::new(AtomicBool::new(false));
    // The drain timeout is far longer than the hang guard below: close() finishing within
    // the guard means the stuck stream did not hold it.
    let builder = App::builder().drain_timeout(Duration::from_secs(60));
    let app = app_draining(Duration::from_millis(200), builder, &dropped);
    let server = Server::start(&app).await;

    // A client that grants its streams no window and never releases any: the server can send
    // the response's head (not flow-controlled) but none of its body, and the socket is free.
    let tcp = connect(server.addr).await;
    let (client, connection) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, Bytes>(tcp)
        .await
        .expect("an HTTP/2 handshake");
    let connection = tokio::spawn(connection);
    let mut client = within("the client to be ready", client.ready())
        .await
        .expect("the connection takes requests");
    let request = hyper::Request::get("http://localhost/big")
        .body(())
        .unwrap();
    let (response, _) = client
        .send_request(request, true)
        .expect("the request is sent");
    let response = within("the response head", response)
        .await
        .expect("a response head");
    assert_eq!(response.status(), 200);

    let closed = tokio::time::timeout(Duration::from_secs(20), app.close()).await;
    assert!(
        closed.is_ok(),
        "close() waited on a stream that got no window"
    );
    assert!(
        dropped.load(Ordering::SeqCst),
        "the stuck response outlived close()"
    );
    // The server cut the connection: the client's side of it ends.
    within("the client's connection to end", connection)
        .await
        .expect("the connection task")
        .ok();
    drop(response);
    server
        .finished()
        .await
        .expect("serve_until ends after close()");
}

#[cfg(feature = "http2")]
#[tokio::test]
async fn an_http2_client_that_reads_gets_the_whole_response_and_a_quiet_stream_is_not_cut() {
    let dropped = Arc::new(AtomicBool::new(false));
    // Short, so that the pause of `GET /quiet` is longer: a response body that waits on
    // itself is not a client that takes nothing.
    let app = app(Duration::from_millis(200), &dropped);
    let server = Server::start(&app).await;
    let client = http2_client();

    let some = get(&client, &server.url("/some")).await.expect("GET /some");
    assert_eq!(some.version, hyper::Version::HTTP_2);
    assert_eq!(some.body.len(), SOME * MIB, "the response was cut");

    let quiet = get(&client, &server.url("/quiet"))
        .await
        .expect("GET /quiet");
    assert_eq!(quiet.text(), "tick\ntick\n", "the quiet stream was cut");

    server.stop().await.expect("a clean close");
}
