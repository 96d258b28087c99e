//! Loopback helpers: serve an `App` on 127.0.0.1 and talk to it with hyper-util's client.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use green_tea::{App, Error};
use http_body_util::{BodyExt, Full};
use hyper::header::CONTENT_TYPE;
use hyper::{HeaderMap, Method, Request, StatusCode, Version};
use hyper_util::client::legacy::Client as LegacyClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

/// How long anything may take before the test calls it a hang. Only a bound: no test waits
/// for it to pass.
pub const HANG: Duration = Duration::from_secs(30);

/// Awaits `future`, failing the test if it hangs.
pub async fn within<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(HANG, future)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {HANG:?}"))
}

/// Polls `condition` until it holds, failing the test if it never does.
pub async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    within(what, async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
}

/// Asks `condition` until it holds (every 10 ms), failing the test if it never does.
pub async fn until_async<F, Fut>(what: &str, mut condition: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    within(what, async {
        while !condition().await {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

/// Holds handlers until the test opens it.
#[derive(Clone)]
pub struct Gate(Arc<watch::Sender<bool>>);

impl Default for Gate {
    fn default() -> Self {
        Gate(Arc::new(watch::channel(false).0))
    }
}

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Gate::default()
    }

    /// Lets every handler waiting at the gate, and every later one, through.
    pub fn open(&self) {
        self.0.send_replace(true);
    }

    /// Waits until the gate is open.
    pub async fn pass(&self) {
        let mut opened = self.0.subscribe();
        let passed = opened.wait_for(|open| *open).await.is_ok();
        assert!(passed, "the gate outlives every handler");
    }
}

/// What [`Server::stop`] fires: the shutdown signal handed to a `serve*_until`.
pub type Signal = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

/// An app served with `serve_until` on a port of 127.0.0.1, in a task of its own.
pub struct Server {
    pub addr: SocketAddr,
    /// Whether the listener the server was given is still open.
    pub listener: ListenerProbe,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), Error>>,
}

impl Server {
    /// Binds port 0 of 127.0.0.1 and serves `app` until [`stop`](Self::stop) or `app.close()`.
    pub async fn start(app: &App) -> Server {
        Server::start_with(app, |app, listener, signal| async move {
            app.serve_until(listener, signal).await
        })
        .await
    }

    /// Like [`start`](Self::start), serving with `serve` (`serve_tls_until`, ...), which is
    /// given the app, the bound listener and the signal that [`stop`](Self::stop) fires.
    pub async fn start_with<F, Served>(app: &App, serve: F) -> Server
    where
        F: FnOnce(App, TcpListener, Signal) -> Served + Send + 'static,
        Served: Future<Output = Result<(), Error>> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let listener_probe = ListenerProbe::of(&listener);
        let (stop, stopped) = oneshot::channel::<()>();
        let signal: Signal = Box::pin(async {
            let _ = stopped.await;
        });
        let task = tokio::spawn(serve(app.clone(), listener, signal));
        Server {
            addr,
            listener: listener_probe,
            stop,
            task,
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Fires the shutdown signal and returns what `serve_until` returned.
    pub async fn stop(self) -> Result<(), Error> {
        let _ = self.stop.send(());
        within("serve_until after the signal", self.task)
            .await
            .expect("serve_until panicked")
    }

    /// Returns what `serve_until` returned once it ends by itself (after `app.close()`),
    /// without firing the signal.
    pub async fn finished(self) -> Result<(), Error> {
        let Server { stop, task, .. } = self;
        let outcome = within("serve_until after close()", task)
            .await
            .expect("serve_until panicked");
        drop(stop);
        outcome
    }
}

/// Tells whether one listening socket is still open, however its port is used after it.
///
/// A bare connect to a freed port cannot say: another test's listener may bind the port the
/// moment it is free, and accept. On Linux the probe looks for the socket itself among the
/// process's open descriptors (`socket:[inode]`, unique while the socket lives); elsewhere it
/// falls back to the connect.
#[derive(Clone, Debug)]
pub struct ListenerProbe {
    addr: SocketAddr,
    socket: Option<std::path::PathBuf>,
}

impl ListenerProbe {
    fn of(listener: &TcpListener) -> ListenerProbe {
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        #[cfg(target_os = "linux")]
        let socket = {
            use std::os::fd::AsRawFd;
            std::fs::read_link(format!("/proc/self/fd/{}", listener.as_raw_fd())).ok()
        };
        #[cfg(not(target_os = "linux"))]
        let socket = None;
        ListenerProbe { addr, socket }
    }

    /// Whether the socket is still open: some descriptor of the process still refers to it
    /// (Linux), or the port still accepts a connection (elsewhere).
    pub async fn is_open(&self) -> bool {
        let Some(socket) = &self.socket else {
            return tokio::net::TcpStream::connect(self.addr).await.is_ok();
        };
        let descriptors = std::fs::read_dir("/proc/self/fd").expect("/proc/self/fd lists");
        // A descriptor closed while the list is read fails its read_link: it is not ours.
        descriptors
            .filter_map(Result::ok)
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|link| &link == socket))
    }
}

/// hyper-util's pooling client, as a service's users would run it.
pub type Client = LegacyClient<HttpConnector, Full<Bytes>>;

/// A client speaking HTTP/1.1.
pub fn http1_client() -> Client {
    LegacyClient::builder(TokioExecutor::new()).build_http()
}

/// A client speaking HTTP/2 with prior knowledge (no upgrade dance).
pub fn http2_client() -> Client {
    LegacyClient::builder(TokioExecutor::new())
        .http2_only(true)
        .build_http()
}

/// A client for each protocol the server speaks: HTTP/1.1, and HTTP/2 with prior knowledge
/// where green-tea's feature `http2` serves it (last).
pub fn clients() -> Vec<Client> {
    [
        Some(http1_client()),
        cfg!(feature = "http2").then(http2_client),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A whole response read off the wire.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub version: Version,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    /// The body as JSON; panics with the body if it is not.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Anything that went wrong on the client side: connecting, sending or reading.
pub type ClientError = Box<dyn std::error::Error + Send + Sync>;

/// Sends a request, with a JSON body if one is given, and reads the whole response.
pub async fn send(
    client: &Client,
    method: Method,
    url: &str,
    json: Option<&serde_json::Value>,
) -> Result<Reply, ClientError> {
    let mut request = Request::builder().method(method).uri(url);
    let body = match json {
        Some(value) => {
            request = request.header(CONTENT_TYPE, "application/json");
            Full::new(Bytes::from(value.to_string()))
        }
        None => Full::new(Bytes::new()),
    };
    let response = client.request(request.body(body)?).await?;
    let (parts, body) = response.into_parts();
    let body = body.collect().await?.to_bytes();
    Ok(Reply {
        status: parts.status,
        version: parts.version,
        headers: parts.headers,
        body,
    })
}

/// `GET url`.
pub async fn get(client: &Client, url: &str) -> Result<Reply, ClientError> {
    send(client, Method::GET, url, None).await
}

/// `POST url` with a JSON body.
pub async fn post(
    client: &Client,
    url: &str,
    json: &serde_json::Value,
) -> Result<Reply, ClientError> {
    send(client, Method::POST, url, Some(json)).await
}

/// Sends a request from a task of its own, so that many are in flight at once.
pub fn spawn_send(
    client: &Client,
    method: Method,
    url: String,
    json: Option<serde_json::Value>,
) -> JoinHandle<Result<Reply, ClientError>> {
    let client = client.clone();
    tokio::spawn(async move { send(&client, method, &url, json.as_ref()).await })
}

/// Awaits every task, in order; a task that panicked fails the test.
pub async fn join_all<T>(tasks: Vec<JoinHandle<T>>) -> Vec<T> {
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        out.push(within("a task", task).await.expect("the task panicked"));
    }
    out
}
