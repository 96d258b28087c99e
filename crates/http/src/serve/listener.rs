//! What the server accepts connections on: a TCP listener, or a Unix domain socket's
//! (`unix.rs`), each handing over a stream and the client's address where it has one.

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpStream};

/// A bound listener the accept loop takes connections from.
pub(crate) trait Listener: Send {
    /// What one accepted connection is.
    type Stream: Send + 'static;

    /// The next connection, and the client's address (`None` where the socket has none that
    /// is an IP address, as a Unix domain socket's).
    fn accept(&self)
    -> impl Future<Output = io::Result<(Self::Stream, Option<SocketAddr>)>> + Send;

    /// Where it listens, for the logs.
    fn local(&self) -> io::Result<String>;
}

impl Listener for TcpListener {
    type Stream = TcpStream;

    async fn accept(&self) -> io::Result<(TcpStream, Option<SocketAddr>)> {
        let (stream, peer) = TcpListener::accept(self).await?;
        Ok((stream, Some(peer)))
    }

    fn local(&self) -> io::Result<String> {
        Ok(self.local_addr()?.to_string())
    }
}
