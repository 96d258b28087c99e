//! Serving on a Unix domain socket (`serve_unix_until`), driven by hyper's HTTP/1.1 and HTTP/2
//! client connections over a real `UnixStream`: the same protocol detection, limits and drain
//! as over TCP.
#![cfg(unix)]

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use green_tea::extract::{ClientAddr, RequestContext};
use green_tea::routing::Route;
use green_tea::serve::Limits;
use green_tea::{App, Error};
use http_body_util::{BodyExt, Empty};
use hyper::{Request, Version};
#[cfg(feature = "http2")]
use hyper_util::rt::TokioExecutor;
use hyper_util::rt::TokioIo;
use tokio::io::AsyncReadExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use support::http::{Gate, within};

/// A directory of its own under the system's temporary one, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "green-tea-unix-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::SeqCst)
        );
        let dir = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An app served with `serve_unix_until` on a socket in a temporary directory.
struct Server {
    socket: PathBuf,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), Error>>,
    _dir: TempDir,
}

impl Server {
    fn start(app: &App) -> Server {
        let dir = TempDir::new();
        let socket = dir.path().join("app.sock");
        let listener = UnixListener::bind(&socket).expect("bind a Unix socket");
        let (stop, stopped) = oneshot::channel::<()>();
        let app = app.clone();
        let task = tokio::spawn(async move {
            let signal = async {
                let _ = stopped.await;
            };
            app.serve_unix_until(listener, signal).await
        });
        Server {
            socket,
            stop,
            task,
            _dir: dir,
        }
    }

    async fn connect(&self) -> UnixStream {
        UnixStream::connect(&self.socket)
            .await
            .expect("connect to the socket")
    }

    async fn stop(self) -> Result<(), Error> {
        let _ = self.stop.send(());
        within("serve_unix_until after the signal", self.task)
            .await
            .expect("serve_unix_until panicked")
    }
}

/// `GET /hello` answers `hello`; `GET /gated` answers `done` once `gate` opens, counting the
/// requests that reached it.
fn app(limits: Limits, gate: &Gate, arrived: &'static AtomicUsize) -> App {
    let gate = gate.clone();
    App::builder()
        .limits(limits)
        .route(Route::get("/hello", |_: RequestContext| async { "hello" }))
        .route(
            Route::get("/whoami", |request: RequestContext| async move {
                let client = request.need::<ClientAddr>(0)?;
                Ok::<_, green_tea::HttpError>(client.to_string())
            })
            .needs::<ClientAddr>(ClientAddr::KEY),
        )
        .route(Route::get("/gated", move |_: RequestContext| {
            let gate = gate.clone();
            async move {
                arrived.fetch_add(1, Ordering::SeqCst);
                gate.pass().await;
                "done"
            }
        }))
        .build()
        .expect("a valid graph")
}

/// The version and body of a 200.
async fn read(response: hyper::Response<hyper::body::Incoming>) -> (Version, String) {
    assert_eq!(response.status(), 200);
    let version = response.version();
    let body = within("the body", response.into_body().collect())
        .await
        .expect("a body")
        .to_bytes();
    (version, String::from_utf8_lossy(&body).into_owned())
}

/// `GET path` over a new HTTP/1.1 connection on `stream`.
async fn get_http1(stream: UnixStream, path: &str) -> (Version, String) {
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 connection");
    tokio::spawn(connection);
    let request = Request::get(path)
        .header("host", "localhost")
        .body(Empty::<Bytes>::new())
        .unwrap();
    let response = within("the response", sender.send_request(request))
        .await
        .expect("a response");
    read(response).await
}

#[tokio::test]
async fn http1_and_http2_over_a_unix_socket_are_answered_by_a_route() {
    static ARRIVED: AtomicUsize = AtomicUsize::new(0);
    let app = app(Limits::default(), &Gate::new(), &ARRIVED);
    let server = Server::start(&app);

    let answer = get_http1(server.connect().await, "/hello").await;
    assert_eq!(answer, (Version::HTTP_11, "hello".to_owned()));

    // HTTP/2 with prior knowledge, told from its preface as over TCP.
    #[cfg(feature = "http2")]
    {
        let (mut sender, connection) = hyper::client::conn::http2::handshake(
            TokioExecutor::new(),
            TokioIo::new(server.connect().await),
        )
        .await
        .expect("an HTTP/2 connection");
        tokio::spawn(connection);
        let request = Request::get("http://localhost/hello")
            .body(Empty::<Bytes>::new())
            .unwrap();
        let response = within("the response", sender.send_request(request))
            .await
            .expect("a response");
        assert_eq!(read(response).await, (Version::HTTP_2, "hello".to_owned()));
    }

    server.stop().await.expect("a clean close");
}

#[tokio::test]
async fn a_unix_sockets_client_has_no_address() {
    static ARRIVED: AtomicUsize = AtomicUsize::new(0);
    let app = app(Limits::default(), &Gate::new(), &ARRIVED);
    let server = Server::start(&app);
    let answer = get_http1(server.connect().await, "/whoami").await;
    assert_eq!(answer, (Version::HTTP_11, "unknown".to_owned()));
    server.stop().await.expect("a clean close");
}

#[tokio::test]
async fn a_silent_unix_connection_is_closed_at_the_head_read_timeout() {
    static ARRIVED: AtomicUsize = AtomicUsize::new(0);
    let mut limits = Limits::default();
    limits.header_read_timeout = Duration::from_millis(200);
    let app = app(limits, &Gate::new(), &ARRIVED);
    let server = Server::start(&app);
    let mut silent = server.connect().await;
    let mut buf = [0_u8; 64];
    let read = within(
        "the server to close the silent connection",
        silent.read(&mut buf),
    )
    .await;
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "the server sent bytes to a client that asked nothing: {read:?}"
    );
    let answer = get_http1(server.connect().await, "/hello").await;
    assert_eq!(answer, (Version::HTTP_11, "hello".to_owned()));
    server.stop().await.expect("a clean close");
}

#[tokio::test]
async fn a_request_in_flight_on_a_unix_socket_is_drained_before_the_server_stops() {
    static ARRIVED: AtomicUsize = AtomicUsize::new(0);
    let gate = Gate::new();
    let app = app(Limits::default(), &gate, &ARRIVED);
    let server = Server::start(&app);
    let stream = server.connect().await;
    let in_flight = tokio::spawn(async move { get_http1(stream, "/gated").await });
    support::http::until("the request to reach its handler", || {
        ARRIVED.load(Ordering::SeqCst) == 1
    })
    .await;
    let stopped = tokio::spawn(server.stop());
    // Stopping waits for the request; the request waits for the gate.
    tokio::task::yield_now().await;
    assert!(!stopped.is_finished(), "stopped with a request in flight");
    gate.open();
    let answer = within("the drained request", in_flight)
        .await
        .expect("the client task");
    assert_eq!(answer, (Version::HTTP_11, "done".to_owned()));
    within("the server to stop", stopped)
        .await
        .expect("the stop task")
        .expect("a clean close");
}
