//! Serving on a Unix domain socket: the same protocols, limits and drain as over TCP. Its
//! clients have no IP address, so the peer address is `None`.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll, ready};

use tokio::io::Interest;
use tokio::net::{UnixListener, UnixStream};

use futures_util::FutureExt;

use super::listener::Listener;
use super::protocol::Peek;
use super::transport::Plain;
use super::{ServeFuture, Signal, shutdown_signal};
use crate::app::App;
use crate::error::Error;

impl App {
    /// Serves on a bound Unix domain socket until Ctrl-C, SIGTERM or
    /// [`close()`](App::close), as [`serve`](Self::serve) does on TCP: HTTP/1 and HTTP/2
    /// (with prior knowledge), the same [`Limits`](crate::Limits), drain and close. The
    /// socket's file stays where it was bound: removing it is the caller's.
    ///
    /// ```no_run
    /// # async fn run(app: green_tea::App) -> Result<(), green_tea::Error> {
    /// let listener = tokio::net::UnixListener::bind("/run/orders.sock")?;
    /// app.serve_unix(listener).await
    /// # }
    /// ```
    ///
    /// Ctrl-C and SIGTERM are caught from this call on, as
    /// [`serve_listener`](Self::serve_listener) says.
    pub fn serve_unix(
        &self,
        listener: UnixListener,
    ) -> impl Future<Output = Result<(), Error>> + Send + '_ {
        let hangups = self.reload_on_sighup();
        let serving = self.serve_unix_on(listener, shutdown_signal());
        async move {
            let _hangups = hangups;
            serving.await
        }
    }

    /// Like [`serve_unix`](Self::serve_unix), until `signal` resolves or `close()` is
    /// called, as [`serve_until`](Self::serve_until).
    pub fn serve_unix_until<'a>(
        &'a self,
        listener: UnixListener,
        signal: impl Future<Output = ()> + Send + 'a,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'a {
        self.serve_unix_on(listener, signal.boxed())
    }

    /// The Unix `serve*`s' future, boxed in this crate (see [`ServeFuture`]).
    fn serve_unix_on<'a>(&'a self, listener: UnixListener, signal: Signal<'a>) -> ServeFuture<'a> {
        self.serve_on(listener, Plain, signal).boxed()
    }
}

impl Listener for UnixListener {
    type Stream = UnixStream;

    async fn accept(&self) -> io::Result<(UnixStream, Option<SocketAddr>)> {
        let (stream, _) = UnixListener::accept(self).await?;
        Ok((stream, None))
    }

    fn local(&self) -> io::Result<String> {
        let local = self.local_addr()?;
        Ok(match local.as_pathname() {
            Some(path) => path.display().to_string(),
            None => format!("{local:?}"),
        })
    }
}

/// tokio's `UnixStream` cannot peek, std's `peek` on one is unstable and socket2's takes
/// uninitialised memory (reading it back would need `unsafe`, which this workspace forbids):
/// rustix's `recv` peeks into an ordinary buffer.
impl Peek for UnixStream {
    fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.poll_read_ready(cx))?;
            let peeked = self.try_io(Interest::READABLE, || {
                rustix::net::recv(self, &mut *buf, rustix::net::RecvFlags::PEEK)
                    .map(|(peeked, _)| peeked)
                    .map_err(io::Error::from)
            });
            match peeked {
                // Readiness was stale: wait for the next.
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                peeked => return Poll::Ready(peeked),
            }
        }
    }
}
