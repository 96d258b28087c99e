//! Clients that stop reading their response, over loopback: the server cuts the connection
//! after the write timeout (and the request leaves flight, so `close()` is not held up), while
//! a client that reads gets its whole response, however large.

mod support;

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

use green_tea::http::{App, Limits, RequestContext, Response, Route};
use support::http::{Server, until, within};
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

/// `GET /big`: `CHUNKS` MiB, streamed. Every body it made sets `dropped` when it goes.
fn app(write_timeout: Duration, dropped: &Arc<AtomicBool>) -> App {
    let mut limits = Limits::default();
    limits.response_write_timeout = write_timeout;
    let dropped = Arc::clone(dropped);
    App::builder()
        .limits(limits)
        .route(Route::get("/big", move |_: RequestContext| {
            let body = Zeros {
                left: CHUNKS,
                dropped: Arc::clone(&dropped),
            };
            async move { Response::new(Body::new(body)) }
        }))
        .build()
        .expect("a valid graph")
}

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
