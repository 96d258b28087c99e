//! A connection's socket, watched for a client that stops reading: each write that cannot
//! proceed notes when it began to wait, and each write that moves bytes clears the note, so
//! the sweeper can cut a connection whose response has not moved for the write timeout.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::connections::Connection;

/// `io`, reporting to `connection` whether its writes are blocked.
pub(crate) struct Watched<T> {
    io: T,
    connection: Arc<Connection>,
}

impl<T> Watched<T> {
    pub(crate) fn new(io: T, connection: Arc<Connection>) -> Self {
        Watched { io, connection }
    }

    /// Notes what a write came to: pending (the socket's buffer is full: the client is not
    /// taking what was sent) or some bytes written. (An error ends the connection anyway.)
    fn note(&self, polled: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        match &polled {
            Poll::Pending => self.connection.writes_blocked(),
            Poll::Ready(Ok(written)) if *written > 0 => self.connection.writes_moved(),
            Poll::Ready(_) => {}
        }
        polled
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.note(polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.note(polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    /// Not watched: a TCP socket's flush does nothing (the kernel sends on its own).
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
