//! Serving over TLS (rustls): the handshake runs in the connection's own task, under the
//! connection registry like the first bytes of a plain connection, and ALPN picks HTTP/2 or
//! HTTP/1.1.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::server::TlsStream;

use futures_util::FutureExt;

use super::connections::{Connection, Ended};
use super::protocol::Protocol;
use super::transport::Transport;
use super::watched::Watched;
use super::{ServeFuture, Signal, shutdown_signal};
use crate::app::App;
use crate::error::Error;

/// The ALPN protocols offered when the configuration names none, in the server's order of
/// preference: `h2` only where HTTP/2 is served (the feature `http2`).
#[cfg(feature = "http2")]
const ALPN: &[&[u8]] = &[b"h2", b"http/1.1"];
#[cfg(not(feature = "http2"))]
const ALPN: &[&[u8]] = &[b"http/1.1"];

impl App {
    /// Serves HTTPS on a bound listener until Ctrl-C, SIGTERM or [`close()`](App::close), as
    /// [`serve`](Self::serve) does plain HTTP: the same [`Limits`](crate::Limits), drain and
    /// close.
    ///
    /// If `config` offers no ALPN protocols, green-tea offers `h2` and `http/1.1` (in that
    /// order) with the feature `http2`, and `http/1.1` alone without it; set
    /// `config.alpn_protocols` yourself to offer fewer. The protocol the client negotiates is
    /// the one served; a client that negotiates none gets HTTP/1.1 (and one that negotiates
    /// `h2` from a configuration of yours, in a build without `http2`, is told in HTTP/2's
    /// terms that HTTP/1.1 is required). The
    /// handshake counts as idle time: one that has not finished within
    /// [`header_read_timeout`](crate::Limits::header_read_timeout) is closed, one that fails
    /// (a bad certificate, a client speaking plain HTTP) is closed at once, with a debug log.
    ///
    /// ```no_run
    /// use green_tea::serve::rustls;
    /// use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    ///
    /// # async fn run(
    /// #     app: green_tea::App,
    /// #     certs: Vec<CertificateDer<'static>>,
    /// #     key: PrivateKeyDer<'static>,
    /// # ) -> Result<(), Box<dyn std::error::Error>> {
    /// let config = rustls::ServerConfig::builder()
    ///     .with_no_client_auth()
    ///     .with_single_cert(certs, key)?;
    /// let listener = tokio::net::TcpListener::bind("0.0.0.0:8443").await?;
    /// app.serve_tls(listener, config).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// Ctrl-C and SIGTERM are caught from this call on, as
    /// [`serve_listener`](Self::serve_listener) says.
    pub fn serve_tls(
        &self,
        listener: TcpListener,
        config: ServerConfig,
    ) -> impl Future<Output = Result<(), Error>> + Send + '_ {
        let hangups = self.reload_on_sighup();
        let serving = self.serve_tls_on(listener, config, shutdown_signal());
        async move {
            let _hangups = hangups;
            serving.await
        }
    }

    /// Like [`serve_tls`](Self::serve_tls), until `signal` resolves or `close()` is called,
    /// as [`serve_until`](Self::serve_until).
    pub fn serve_tls_until<'a>(
        &'a self,
        listener: TcpListener,
        config: ServerConfig,
        signal: impl Future<Output = ()> + Send + 'a,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'a {
        self.serve_tls_on(listener, config, signal.boxed())
    }

    /// The TLS `serve*`s' future, boxed in this crate (see [`ServeFuture`]).
    fn serve_tls_on<'a>(
        &'a self,
        listener: TcpListener,
        mut config: ServerConfig,
        signal: Signal<'a>,
    ) -> ServeFuture<'a> {
        if config.alpn_protocols.is_empty() {
            config.alpn_protocols = ALPN.iter().map(|protocol| protocol.to_vec()).collect();
        }
        let tls = Tls(TlsAcceptor::from(Arc::new(config)));
        self.serve_on(listener, tls, signal).boxed()
    }
}

/// The TLS handshake, then the protocol ALPN negotiated.
#[derive(Clone)]
pub(crate) struct Tls(TlsAcceptor);

impl Transport<TcpStream> for Tls {
    /// TLS over the watched socket: a client that stops reading stalls the socket's writes,
    /// whatever TLS made of them.
    type Io = TlsStream<Watched<TcpStream>>;

    async fn start(
        &self,
        stream: TcpStream,
        connection: &Arc<Connection>,
    ) -> Result<(Self::Io, Protocol), Ended<()>> {
        let handshake = self.0.accept(Watched::new(stream, Arc::clone(connection)));
        match connection
            .serve(pin!(Cancellable::new(handshake)), Cancellable::cancel)
            .await
        {
            Ended::Served(Some(Ok(tls))) => {
                let protocol = match tls.get_ref().1.alpn_protocol() {
                    Some(b"h2") => Protocol::Http2,
                    _ => Protocol::Http1,
                };
                Ok((tls, protocol))
            }
            Ended::Served(Some(Err(error))) => {
                tracing::debug!(%error, "TLS handshake failed; connection closed");
                Err(Ended::Served(()))
            }
            // Given up on: idle for too long, or the server is draining.
            Ended::Served(None) => {
                tracing::debug!("TLS handshake unfinished when the connection was given up on");
                Err(Ended::Served(()))
            }
            Ended::Idle => Err(Ended::Idle),
            Ended::Stalled => Err(Ended::Stalled),
        }
    }
}

/// `future`, resolving to `None` once cancelled: fits the connection registry's graceful
/// shutdown, for a future (the handshake) that has none of its own.
struct Cancellable<F> {
    future: F,
    cancelled: bool,
}

impl<F: Unpin> Cancellable<F> {
    fn new(future: F) -> Self {
        Cancellable {
            future,
            cancelled: false,
        }
    }

    fn cancel(self: Pin<&mut Self>) {
        self.get_mut().cancelled = true;
    }
}

impl<F: Future + Unpin> Future for Cancellable<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if this.cancelled {
            return Poll::Ready(None);
        }
        Pin::new(&mut this.future).poll(cx).map(Some)
    }
}
