//! How an accepted stream becomes a connection that hyper serves: what hyper reads and writes,
//! and which protocol it speaks. A plain stream (TCP, Unix domain socket) is told by its first
//! bytes (`protocol.rs`); a TLS one by the handshake's ALPN (`tls.rs`).
//!
//! Either way this runs in the connection's own task, under the connection registry: a client
//! that sends nothing, or stalls its handshake, is closed at the head read timeout like any
//! idle connection, and holds neither a worker nor the accept loop meanwhile.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};

use super::connections::{Connection, Ended};
use super::protocol::{Detect, Peek, Protocol};
use super::watched::Watched;

/// Turns an accepted `S` into the IO hyper serves, and its protocol.
pub(crate) trait Transport<S>: Clone + Send + Sync + 'static {
    /// What hyper reads and writes: the stream, watched for a client that stops reading
    /// ([`Watched`]), under TLS if any.
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;

    /// Gets `stream` ready to serve, or says how the connection ended before it was.
    fn start(
        &self,
        stream: S,
        connection: &Arc<Connection>,
    ) -> impl Future<Output = Result<(Self::Io, Protocol), Ended<()>>> + Send;
}

/// Plain HTTP, HTTP/1 or HTTP/2 with prior knowledge, told apart by the first bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plain;

impl<S> Transport<S> for Plain
where
    S: Peek + AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static,
{
    type Io = Watched<S>;

    /// Waiting for the first bytes counts as idle, so a client that sends nothing is closed
    /// after the head read timeout as any idle connection is.
    async fn start(
        &self,
        stream: S,
        connection: &Arc<Connection>,
    ) -> Result<(Watched<S>, Protocol), Ended<()>> {
        let protocol = match connection
            .serve(pin!(Detect::new(&stream)), Detect::cancel)
            .await
        {
            Ended::Served(Ok(Some(protocol))) => protocol,
            // Closed by the client before a byte came, or given up on: idle for too long, or
            // the server is draining.
            Ended::Served(Ok(None)) => return Err(Ended::Served(())),
            Ended::Served(Err(error)) => {
                tracing::debug!(%error, "reading a new connection's first bytes failed");
                return Err(Ended::Served(()));
            }
            Ended::Idle => return Err(Ended::Idle),
            Ended::Stalled => return Err(Ended::Stalled),
        };
        Ok((Watched::new(stream, Arc::clone(connection)), protocol))
    }
}
