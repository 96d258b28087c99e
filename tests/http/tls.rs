//! HTTPS over loopback: `serve_tls_until` with a certificate made in the test, driven by a real
//! TLS client (tokio-rustls) and hyper's HTTP/1.1 and HTTP/2 client connections; and TLS
//! clients that stall, fail their handshake or speak plain HTTP, each closed while the server
//! keeps serving.

use crate::support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once};
use std::time::Duration;

use bytes::Bytes;
use green_tea::App;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::serve::Limits;
use green_tea::serve::rustls::pki_types::{
    CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName,
};
use green_tea::serve::rustls::{ClientConfig, RootCertStore, ServerConfig};
use http_body_util::{BodyExt, Empty};
use hyper::{Request, Version};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use support::http::{Server, within};
use support::raw::{closed_by_server, connect};

/// A self-signed certificate for `localhost`, made for the test, and its key.
struct Certificate {
    cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl Certificate {
    fn new() -> Certificate {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
            .expect("a self-signed certificate");
        Certificate {
            cert: made.cert.der().clone(),
            key: PrivatePkcs8KeyDer::from(made.signing_key.serialize_der()),
        }
    }

    /// The server's configuration, offering the ALPN protocols given (none: green-tea's).
    fn server(&self, alpn: &[&[u8]]) -> ServerConfig {
        let mut config = ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![self.cert.clone()],
                PrivateKeyDer::Pkcs8(self.key.clone_key()),
            )
            .expect("a valid certificate and key");
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        config
    }

    /// A client trusting only this certificate, offering the ALPN protocols given.
    fn client(&self, alpn: &[&[u8]]) -> TlsConnector {
        let mut roots = RootCertStore::empty();
        roots.add(self.cert.clone()).expect("a valid root");
        let mut config = ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        TlsConnector::from(Arc::new(config))
    }
}

/// `GET /hello` answers `hello`.
fn app(limits: Limits) -> App {
    App::builder()
        .limits(limits)
        .route(Route::get("/hello", |_: RequestContext| async { "hello" }))
        .build()
        .expect("a valid graph")
}

/// Serves `app` over TLS with `config` on a port of 127.0.0.1.
async fn serve(app: &App, config: ServerConfig) -> Server {
    Server::start_with(app, move |app, listener, signal| async move {
        app.serve_tls_until(listener, config, signal).await
    })
    .await
}

/// A TLS connection to `server`, handshake done.
async fn tls(server: &Server, client: &TlsConnector) -> TlsStream<TcpStream> {
    let tcp = connect(server.addr).await;
    let name = ServerName::try_from("localhost").expect("a DNS name");
    within("the TLS handshake", client.connect(name, tcp))
        .await
        .expect("a TLS handshake with the server")
}

/// `GET /hello` over `stream` with hyper's HTTP/1.1 client connection: the status's version
/// and the body.
async fn get_http1(stream: TlsStream<TcpStream>) -> (Version, String) {
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 connection");
    tokio::spawn(connection);
    let request = Request::get("/hello")
        .header("host", "localhost")
        .body(Empty::<Bytes>::new())
        .unwrap();
    read(sender.send_request(request)).await
}

/// `GET /hello` over `stream` with hyper's HTTP/2 client connection.
async fn get_http2(stream: TlsStream<TcpStream>) -> (Version, String) {
    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("an HTTP/2 connection");
    tokio::spawn(connection);
    let request = Request::get("https://localhost/hello")
        .body(Empty::<Bytes>::new())
        .unwrap();
    read(sender.send_request(request)).await
}

/// A 200's version and body.
async fn read(
    response: impl Future<Output = hyper::Result<hyper::Response<hyper::body::Incoming>>>,
) -> (Version, String) {
    let response = within("the response", response).await.expect("a response");
    assert_eq!(response.status(), 200);
    let version = response.version();
    let body = within("the body", response.into_body().collect())
        .await
        .expect("a body")
        .to_bytes();
    (version, String::from_utf8_lossy(&body).into_owned())
}

/// The server still answers a well-behaved HTTPS client.
async fn still_serving(server: &Server, certificate: &Certificate) {
    let stream = tls(server, &certificate.client(&[b"h2"])).await;
    assert_eq!(
        get_http2(stream).await,
        (Version::HTTP_2, "hello".to_owned())
    );
}

/// How many threads have panicked in this test binary since it started (every panic, from
/// any test or task, goes through the hook).
fn panics() -> usize {
    static PANICS: AtomicUsize = AtomicUsize::new(0);
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
    });
    PANICS.load(Ordering::SeqCst)
}

#[tokio::test]
async fn https_over_http1_and_http2_is_answered_by_a_route_with_the_protocol_alpn_chose() {
    let certificate = Certificate::new();
    let app = app(Limits::default());
    // No ALPN in the server's configuration: green-tea offers h2 and http/1.1.
    let server = serve(&app, certificate.server(&[])).await;

    let stream = tls(&server, &certificate.client(&[b"http/1.1"])).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    assert_eq!(
        get_http1(stream).await,
        (Version::HTTP_11, "hello".to_owned())
    );

    let stream = tls(&server, &certificate.client(&[b"h2", b"http/1.1"])).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    assert_eq!(
        get_http2(stream).await,
        (Version::HTTP_2, "hello".to_owned())
    );

    // A client that negotiates no protocol is served HTTP/1.1.
    let stream = tls(&server, &certificate.client(&[])).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), None);
    assert_eq!(
        get_http1(stream).await,
        (Version::HTTP_11, "hello".to_owned())
    );

    server.stop().await.expect("a clean close");
}

#[tokio::test]
async fn alpn_protocols_in_the_configuration_are_kept() {
    let certificate = Certificate::new();
    let app = app(Limits::default());
    let server = serve(&app, certificate.server(&[b"http/1.1"])).await;
    let stream = tls(&server, &certificate.client(&[b"h2", b"http/1.1"])).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    assert_eq!(
        get_http1(stream).await,
        (Version::HTTP_11, "hello".to_owned())
    );
    server.stop().await.expect("a clean close");
}

#[tokio::test]
async fn a_stalled_handshake_is_closed_at_the_head_read_timeout() {
    let certificate = Certificate::new();
    let mut limits = Limits::default();
    limits.header_read_timeout = Duration::from_millis(200);
    let app = app(limits);
    let server = serve(&app, certificate.server(&[])).await;
    // A TLS record header announcing a ClientHello, and then nothing: rustls waits for the
    // rest, and the wait is idle time like any other.
    let mut stalled = connect(server.addr).await;
    stalled
        .write_all(&[0x16, 0x03, 0x01, 0x00, 0xf0])
        .await
        .unwrap();
    let mut silent = connect(server.addr).await;
    assert!(
        closed_by_server(&mut stalled).await,
        "a stalled handshake stayed open"
    );
    assert!(
        closed_by_server(&mut silent).await,
        "a connection that never started its handshake stayed open"
    );
    still_serving(&server, &certificate).await;
    server.stop().await.expect("a clean close");
}

#[tokio::test]
async fn stalled_handshakes_hold_neither_the_accept_loop_nor_shutdown() {
    let certificate = Certificate::new();
    // The default head read timeout (10 s): the stalled handshakes are open throughout.
    let app = app(Limits::default());
    let server = serve(&app, certificate.server(&[])).await;
    let mut stalled = Vec::new();
    for _ in 0..8 {
        let mut stream = connect(server.addr).await;
        stream
            .write_all(&[0x16, 0x03, 0x01, 0x00, 0xf0])
            .await
            .unwrap();
        stalled.push(stream);
    }
    // The test's runtime has one thread: a handshake that held it would hold everything.
    still_serving(&server, &certificate).await;
    // Draining gives up on the handshakes at once.
    server.stop().await.expect("a clean close");
    for stream in &mut stalled {
        assert!(closed_by_server(stream).await, "left open after shutdown");
    }
}

#[tokio::test]
async fn a_failed_handshake_is_closed_at_once() {
    let certificate = Certificate::new();
    let mut limits = Limits::default();
    // Far longer than the test waits: the close comes from the failure, not from idleness.
    limits.header_read_timeout = Duration::from_secs(120);
    let app = app(limits);
    let server = serve(&app, certificate.server(&[])).await;
    let panics_before = panics();

    // A handshake record full of garbage.
    let mut garbage = connect(server.addr).await;
    let mut record = vec![0x16, 0x03, 0x01, 0x00, 0x40];
    record.extend_from_slice(&[0xa5; 0x40]);
    garbage.write_all(&record).await.unwrap();
    assert!(
        closed_by_server(&mut garbage).await,
        "a garbage handshake stayed open"
    );
    still_serving(&server, &certificate).await;

    // A client that does not trust the server's certificate gives up mid-handshake.
    let stranger = Certificate::new();
    let tcp = connect(server.addr).await;
    let name = ServerName::try_from("localhost").unwrap();
    let refused = within(
        "an untrusting client's handshake",
        stranger.client(&[b"h2"]).connect(name, tcp),
    )
    .await;
    assert!(
        refused.is_err(),
        "a client trusted a certificate it has not seen"
    );
    still_serving(&server, &certificate).await;

    assert_eq!(panics(), panics_before, "something panicked");
    server.stop().await.expect("a clean close");
}

#[tokio::test]
async fn plain_http_to_the_tls_port_is_closed_without_a_panic() {
    let certificate = Certificate::new();
    let mut limits = Limits::default();
    limits.header_read_timeout = Duration::from_secs(120);
    let app = app(limits);
    let server = serve(&app, certificate.server(&[])).await;
    let panics_before = panics();

    let mut http1 = connect(server.addr).await;
    http1
        .write_all(b"GET /hello HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    assert!(
        closed_by_server(&mut http1).await,
        "plain HTTP/1 on the TLS port stayed open"
    );
    let mut http2 = connect(server.addr).await;
    http2
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    assert!(
        closed_by_server(&mut http2).await,
        "a plain HTTP/2 preface on the TLS port stayed open"
    );
    still_serving(&server, &certificate).await;

    assert_eq!(panics(), panics_before, "something panicked");
    server.stop().await.expect("a clean close");
}
