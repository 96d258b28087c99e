//! Serving an `App` on hyper (HTTP/1, and HTTP/2 with the feature `http2`; over TCP, TLS or a
//! Unix domain socket), until a signal or `close()`.

mod body;
mod connections;
#[cfg(feature = "http2")]
mod flow;
mod listener;
mod protocol;
mod settings;
#[cfg(feature = "tls")]
mod tls;
mod transport;
#[cfg(unix)]
mod unix;
mod watched;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::Service;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::task::JoinSet;

use axum_core::body::Body;
use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use crate::app::App;
use crate::client_addr::ClientAddr;
use crate::error::Error;
use crate::layer::Layered;
use crate::response::Reply;
use body::InFlightBody;
use connections::{Connection, Connections, Ended};
#[cfg(feature = "http2")]
use flow::FlowWatch;
use listener::Listener;
use protocol::Protocol;
pub use settings::ConnectionBuilders;
use transport::{Plain, Transport};

/// A `serve*` call's future, boxed where it is made: in this crate, so that an application
/// that awaits it calls its `poll` through the box rather than compiling the server (hyper's
/// HTTP/1 and HTTP/2 connections, tokio's tasks, the drain) into its own crate again. One
/// allocation per `serve*` call, none per request.
pub(crate) type ServeFuture<'a> = BoxFuture<'a, Result<(), Error>>;

/// What stops a `serve*` call (Ctrl-C and SIGTERM, or the caller's own future), boxed by the
/// public shell so that the accept loop is not generic over it.
pub(crate) type Signal<'a> = BoxFuture<'a, ()>;

impl App {
    /// Binds `addr` and serves until Ctrl-C, SIGTERM or [`close()`](App::close); then stops
    /// accepting, lets requests in flight finish, and closes the app. Returns the close outcome.
    ///
    /// An app that is closed already (by `close()`, or by a failed [`start()`](App::start))
    /// is not served: `serve` returns `Error::Provide(ProvideError::Closed)` at once.
    pub async fn serve(&self, addr: impl ToSocketAddrs) -> Result<(), Error> {
        let listener = TcpListener::bind(addr).await?;
        self.serve_listener(listener).await
    }

    /// Like [`serve`](Self::serve), on a listener that is already bound.
    ///
    /// Ctrl-C and SIGTERM are caught from this call on, before the returned future is first
    /// polled: make the future, then print the address a supervisor or a test waits for,
    /// then await it, and a SIGTERM sent as soon as the address is out stops the app
    /// gracefully (signals are otherwise caught once serving begins, and the default action
    /// before that kills the process with nothing disposed).
    ///
    /// ```no_run
    /// # async fn run(app: green_tea::App) -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let addr = listener.local_addr()?;
    /// let served = app.serve_listener(listener); // Ctrl-C and SIGTERM caught from here
    /// println!("listening on http://{addr}");
    /// served.await?;
    /// # Ok(()) }
    /// ```
    pub fn serve_listener(
        &self,
        listener: TcpListener,
    ) -> impl Future<Output = Result<(), Error>> + Send + '_ {
        let hangups = self.reload_on_sighup();
        let serving = self.serve_tcp(listener, shutdown_signal());
        async move {
            let _hangups = hangups;
            serving.await
        }
    }

    /// Serves until `signal` resolves or `close()` is called; then closes as
    /// [`serve`](Self::serve) does. For embedding in a program with its own shutdown.
    pub fn serve_until<'a>(
        &'a self,
        listener: TcpListener,
        signal: impl Future<Output = ()> + Send + 'a,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'a {
        self.serve_tcp(listener, signal.boxed())
    }

    /// Every TCP `serve*`'s future, made and boxed here: not generic, so that the serving
    /// (hyper's connections, the tasks, the drain) is compiled once, in this crate, and the
    /// application's crate only calls it (see [`ServeFuture`]).
    fn serve_tcp<'a>(&'a self, listener: TcpListener, signal: Signal<'a>) -> ServeFuture<'a> {
        self.serve_on(listener, Plain, signal).boxed()
    }

    /// The accept loop of every `serve*`: accepts from `listener` and serves each connection
    /// in a task of its own, `transport` making it ready (protocol detection, TLS), until
    /// `signal` or `close()`; then drains and closes.
    async fn serve_on<L, T>(
        &self,
        listener: L,
        transport: T,
        mut signal: Signal<'_>,
    ) -> Result<(), Error>
    where
        L: Listener,
        T: Transport<L::Stream>,
    {
        let local = listener.local()?;
        // A closed app (by `close()` or a failed `start()`) serves nothing: it says so at
        // once rather than accepting and draining in the same breath.
        if self.is_closed() {
            tracing::error!(%local, "the app is closed; not serving");
            return Err(green_tea_core::ProvideError::Closed.into());
        }
        // Workers start with the serving: what they need is built first. A worker whose needs
        // cannot be built stops the serve before the first accept, and the app is closed.
        // No reload replaces the generation while its workers start.
        let no_reload = self.hold_reloads().await;
        let started = self.container().start_workers().await;
        drop(no_reload);
        if let Err(error) = started {
            tracing::error!(%error, "the workers could not start");
            let _ = self.close().await;
            return Err(error.into());
        }
        tracing::info!(%local, "serving");
        let mut closing = self.closing();
        let limits = self.limits();
        let connections =
            Connections::new(limits.header_read_timeout, limits.response_write_timeout);
        let mut tasks = JoinSet::new();
        let http = Arc::new(ConnectionBuilders::new(&limits));
        let _sweeper = connections.start_sweeper()?;
        // Ready (for the readiness route) from the first accept on.
        self.mark_served();
        loop {
            tokio::select! {
                // Closing first: a connection accepted once `close()` has begun would be
                // drained before its first request is read (with health routes, it is
                // accepted below and answered instead).
                biased;
                () = &mut signal => {
                    tracing::info!("shutdown signal received");
                    break;
                }
                () = closed(&mut closing) => break,
                accepted = listener.accept() => {
                    self.take(accepted, &mut tasks, &http, &transport, &connections).await;
                }
                // Reap finished connections so the set does not grow with the server's age.
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            }
        }
        // With health routes, connections are still accepted while the app drains, so that
        // probes get the readiness route's 503 rather than a refused connection.
        // Either way the app stops taking requests here, before `close()` logs a word: said
        // now, so the logs read in the order things happened.
        let answer_during_drain = self.answers_during_drain();
        let listener = if answer_during_drain {
            tracing::info!(
                %local,
                "stopped accepting requests; the health routes answer until the app is closed"
            );
            Some(listener)
        } else {
            drop(listener);
            tracing::info!(%local, "stopped accepting");
            None
        };
        // Connections finish their requests in flight and then end; close() waits for those
        // same requests before it disposes anything.
        connections.drain();
        let drain = tokio::time::timeout(self.drain_timeout(), async {
            while tasks.join_next().await.is_some() {}
        });
        let close_and_drain = async { tokio::join!(self.close(), drain).0 };
        let closed = match listener {
            None => close_and_drain.await,
            Some(listener) => {
                let closed = self
                    .accept_while(&listener, &transport, &http, close_and_drain)
                    .await?;
                drop(listener);
                tracing::debug!(%local, "the listener is closed");
                closed
            }
        };
        // Whatever is still connected after the drain timeout is cut off, not left running.
        tasks.abort_all();
        closed.map_err(Error::from)
    }

    /// Accepts and serves connections until `until` resolves: during the drain, where the app
    /// answers its health routes and 503 to every other request. These connections are not
    /// drained (their requests touch no provider); they end when `until` does.
    async fn accept_while<L, T, O>(
        &self,
        listener: &L,
        transport: &T,
        http: &Arc<ConnectionBuilders>,
        until: impl Future<Output = O>,
    ) -> Result<O, Error>
    where
        L: Listener,
        T: Transport<L::Stream>,
    {
        let limits = self.limits();
        let connections =
            Connections::new(limits.header_read_timeout, limits.response_write_timeout);
        let _sweeper = connections.start_sweeper()?;
        let mut tasks = JoinSet::new();
        tokio::pin!(until);
        let outcome = loop {
            tokio::select! {
                outcome = &mut until => break outcome,
                accepted = listener.accept() => {
                    self.take(accepted, &mut tasks, http, transport, &connections).await;
                }
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            }
        };
        tasks.abort_all();
        Ok(outcome)
    }
}

impl App {
    /// One `accept`'s outcome, for both accept loops: the connection served in a task of its
    /// own; on an error (out of file descriptors and the like), a short back-off instead of
    /// spinning.
    async fn take<S, T>(
        &self,
        accepted: std::io::Result<(S, Option<SocketAddr>)>,
        tasks: &mut JoinSet<()>,
        http: &Arc<ConnectionBuilders>,
        transport: &T,
        connections: &Connections,
    ) where
        S: Send + 'static,
        T: Transport<S>,
    {
        match accepted {
            Ok((stream, peer)) => {
                // The task's future is `serve_connection`'s own, with everything built inside
                // it: a future built outside and awaited inside would be held twice (as the
                // captured value and as the awaited one), and it is the largest part of an idle
                // connection's memory.
                tasks.spawn(serve_connection(
                    self.clone(),
                    Arc::clone(http),
                    transport.clone(),
                    connections.open(),
                    stream,
                    peer,
                ));
            }
            Err(error) => {
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Serves one connection until it ends, and says how it ended. `peer` is the client's
/// address, `None` on a Unix domain socket.
async fn serve_connection<S, T: Transport<S>>(
    app: App,
    http: Arc<ConnectionBuilders>,
    transport: T,
    connection: Arc<Connection>,
    stream: S,
    peer: Option<SocketAddr>,
) {
    let ended = match transport.start(stream, &connection).await {
        Ok((io, protocol)) => serve_protocol(app, http, connection, io, protocol, peer).await,
        Err(Ended::Served(())) => Ended::Served(Ok(())),
        Err(Ended::Idle) => Ended::Idle,
        Err(Ended::Stalled) => Ended::Stalled,
    };
    let peer = peer.map(tracing::field::display);
    match ended {
        Ended::Served(Ok(())) => {}
        Ended::Served(Err(error)) => {
            tracing::debug!(peer, %error, "connection ended with an error");
        }
        Ended::Idle => {
            tracing::debug!(
                peer,
                "no request within the head read timeout; connection closed"
            );
        }
        Ended::Stalled => {
            tracing::debug!(
                peer,
                "the client took none of the response within the write timeout; connection closed"
            );
        }
    }
}

/// Hands a connection to hyper's HTTP/1 or HTTP/2 connection, each driven by the registry
/// (idle and stalled connections, graceful shutdown).
async fn serve_protocol<I>(
    app: App,
    http: Arc<ConnectionBuilders>,
    connection: Arc<Connection>,
    io: I,
    protocol: Protocol,
    peer: Option<SocketAddr>,
) -> Ended<Result<(), hyper::Error>>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(io);
    // Whether the app has global layers is asked once per connection, so that an app without
    // them serves through a service that has no branch for them. (One service type with a
    // branch per request, so that hyper's connection is compiled once per transport rather
    // than twice, measured more instructions a request in release and fewer in the tuned
    // build: release is what users build. docs/benchmarks.md has the figures.)
    match app.layered().cloned() {
        None => {
            let service = connection_service(app, &connection, peer);
            serve_http(&http, &connection, io, protocol, service).await
        }
        Some(layered) => {
            let service = layered_service(app, layered, &connection, peer);
            serve_http(&http, &connection, io, protocol, service).await
        }
    }
}

/// hyper's HTTP/1 or HTTP/2 connection over `io`, driven by the registry (idle and stalled
/// connections, graceful shutdown).
async fn serve_http<I, S>(
    http: &ConnectionBuilders,
    connection: &Arc<Connection>,
    io: TokioIo<I>,
    protocol: Protocol,
    service: S,
) -> Ended<Result<(), hyper::Error>>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: Service<
            http::Request<Incoming>,
            Response = http::Response<InFlightBody>,
            Error = Infallible,
        > + Send
        + 'static,
    S::Future: Send + 'static,
{
    match protocol {
        Protocol::Http1 => {
            let served = pin!(http.http1.serve_connection(io, service).with_upgrades());
            connection
                .serve(served, |served| served.graceful_shutdown())
                .await
        }
        // Boxed: an HTTP/2 connection is larger than an HTTP/1 one, and a future sized for it
        // would make every HTTP/1 connection's task that large too. Its responses are watched
        // for a client that grants them no flow-control window (`flow.rs`).
        #[cfg(feature = "http2")]
        Protocol::Http2 => {
            let service = FlowWatch::new(service, Arc::clone(connection));
            let mut served = Box::pin(http.http2.serve_connection(io, service));
            connection
                .serve(served.as_mut(), |served| served.graceful_shutdown())
                .await
        }
        // This build serves HTTP/1 only: the client is told so in HTTP/2's own terms, then the
        // connection is closed. The write is a few bytes into a new socket's empty buffer, and
        // under the registry like a response: a client that reads nothing, or never closes,
        // cannot hold it past the write or head read timeout.
        #[cfg(not(feature = "http2"))]
        Protocol::Http2 => {
            drop(service);
            let mut io = io.into_inner();
            // Ended early when the server drains, as an idle HTTP/1 connection is.
            let (refusal, stop) = futures_util::future::abortable(protocol::refuse_http2(&mut io));
            tracing::debug!(
                "a client started HTTP/2, which this build does not serve (green-tea's \
                 feature `http2` is off): told HTTP/1.1 is required, connection closed"
            );
            match connection.serve(pin!(refusal), |_| stop.abort()).await {
                Ended::Served(_) => Ended::Served(Ok(())),
                Ended::Idle => Ended::Idle,
                Ended::Stalled => Ended::Stalled,
            }
        }
    }
}

/// The service that answers a connection's requests when the app has no global layers: the
/// one place it is built, whatever the listener and transport. Not generic over them, so that
/// its per-request code is compiled once and stays where the dispatch it calls can be inlined
/// into it.
fn connection_service(
    app: App,
    connection: &Arc<Connection>,
    peer: Option<SocketAddr>,
) -> impl Service<
    http::Request<Incoming>,
    Response = http::Response<InFlightBody>,
    Error = Infallible,
    Future = impl Future<Output = Result<http::Response<InFlightBody>, Infallible>> + Send + 'static,
> + Send
+ 'static {
    let connection = Arc::clone(connection);
    hyper::service::service_fn(move |request: http::Request<Incoming>| {
        // Counted from here until the response body is done: the connection is busy, not
        // idle, however long the handler or the body takes.
        let busy = connection.begin();
        // hyper's body goes in unboxed, and the response body comes out unboxed.
        app.dispatch(request, peer, move |response: Reply, entered| {
            let response = response.map(|body| InFlightBody::new(body, entered, busy));
            Ok::<_, Infallible>(response)
        })
    })
}

/// The same through the app's global layers. The request's place in flight is in the body
/// the layers hand back; the client's address is in the request's extensions, where layers
/// look for it.
fn layered_service(
    app: App,
    layered: Layered,
    connection: &Arc<Connection>,
    peer: Option<SocketAddr>,
) -> impl Service<
    http::Request<Incoming>,
    Response = http::Response<InFlightBody>,
    Error = Infallible,
    Future = impl Future<Output = Result<http::Response<InFlightBody>, Infallible>> + Send + 'static,
> + Send
+ 'static {
    let connection = Arc::clone(connection);
    hyper::service::service_fn(move |request: http::Request<Incoming>| {
        let busy = connection.begin();
        let mut request = request.map(Body::new);
        if peer.is_some() {
            request.extensions_mut().insert(ClientAddr(peer));
        }
        let through = app.through_layers(layered.clone(), request);
        async move {
            let response = through.await;
            let response = response.map(|body| InFlightBody::new(body, None, busy));
            Ok::<_, Infallible>(response)
        }
    })
}

/// Resolves once `close()` has begun. (Drops the watch's read guard before returning, so the
/// serve future stays `Send`.)
async fn closed(closing: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = closing.wait_for(|closed| *closed).await;
}

/// Ctrl-C, or SIGTERM on Unix: both caught from this call on (inside a tokio runtime), not
/// from the returned future's first poll. A process manager's SIGTERM that arrives after a
/// program printed its address, while it still builds or starts, is then a graceful stop,
/// never the default action's instant kill (which disposes nothing).
pub(crate) fn shutdown_signal() -> Signal<'static> {
    let caught = Caught::now();
    caught.wait().boxed()
}

/// The signals a `serve*` call stops on, registered with tokio when made (tokio keeps a
/// signal's handler for the process's life once registered).
struct Caught {
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl Caught {
    /// Registers now where a runtime is current; outside one (a future made before its
    /// runtime), at the first poll.
    fn now() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let in_runtime = tokio::runtime::Handle::try_current().is_ok();
            let register = |kind| in_runtime.then(|| signal(kind).ok()).flatten();
            Caught {
                terminate: register(SignalKind::terminate()),
                interrupt: register(SignalKind::interrupt()),
            }
        }
        #[cfg(not(unix))]
        Caught {}
    }

    async fn wait(self) {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{Signal, SignalKind, signal};
            let received = |registered: Option<Signal>, kind| async move {
                match registered.map_or_else(|| signal(kind), Ok) {
                    Ok(mut caught) => {
                        caught.recv().await;
                    }
                    // No signal driver (a runtime without one): only `close()` stops it.
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = received(self.terminate, SignalKind::terminate()) => {}
                () = received(self.interrupt, SignalKind::interrupt()) => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
