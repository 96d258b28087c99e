//! Which protocol a new plain (not TLS) connection speaks, told from its first bytes without
//! taking them off the socket, so that hyper's HTTP/1 or HTTP/2 connection reads them itself.
//! (Over TLS, ALPN tells it: `tls.rs`.)
//!
//! hyper-util's auto builder reads the first bytes (up to the 24 of the HTTP/2 preface) into a
//! buffer of its own and hands them back through a wrapper around the socket. That costs every
//! connection, for as long as it lives: the wrapper, the builders copied into it, a future
//! sized for the larger of the two protocols, and an HTTP/1 read buffer that doubles (the
//! short first read leaves it too small for hyper's next one, so 8 KiB becomes 16 KiB).
//! Peeking costs one `recv(MSG_PEEK)` per connection and nothing afterwards.

use std::future::Future;
#[cfg(not(feature = "http2"))]
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::ReadBuf;
#[cfg(not(feature = "http2"))]
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// A socket whose received bytes can be read without taking them off it.
pub(crate) trait Peek {
    /// Copies what has arrived, up to `buf`'s length, leaving it to be read; 0 once the peer
    /// has closed its end.
    fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>>;
}

impl Peek for TcpStream {
    fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        TcpStream::poll_peek(self, cx, &mut ReadBuf::new(buf))
    }
}

/// What a client that knows the server speaks HTTP/2 sends first (RFC 9113, section 3.4).
const HTTP2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What a build without HTTP/2 (green-tea's feature `http2` off) answers a client that starts
/// it: the server's connection preface (an empty SETTINGS frame), then GOAWAY with the error
/// code HTTP_1_1_REQUIRED (RFC 9113, sections 3.4, 6.8 and 7), so that the client says why
/// (h2 reports "HTTP_1_1_REQUIRED", curl falls back to HTTP/1.1 where it may) instead of a
/// connection closed for no reason. No stream was opened: the last stream id is 0.
#[cfg(not(feature = "http2"))]
const HTTP2_REFUSAL: [u8; 26] = [
    // SETTINGS: length 0, type 0x4, no flags, stream 0.
    0, 0, 0, 0x4, 0, 0, 0, 0, 0, //
    // GOAWAY: length 8, type 0x7, no flags, stream 0; last stream id 0; error 0xd.
    0, 0, 8, 0x7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xd,
];

/// Writes [`HTTP2_REFUSAL`] to `io` and shuts its write side, then reads what the client sent
/// until it closes its end: closed with unread bytes, a socket would answer with a reset, which
/// may reach the client before it has read the GOAWAY. (The caller bounds the wait: a client
/// that neither closes nor sends is idle.)
#[cfg(not(feature = "http2"))]
pub(crate) async fn refuse_http2<I: AsyncRead + AsyncWrite + Unpin>(io: &mut I) -> io::Result<()> {
    let mut written = 0;
    let mut shut = false;
    let mut discard = [0; 1024];
    poll_fn(|cx| {
        while written < HTTP2_REFUSAL.len() {
            match ready!(Pin::new(&mut *io).poll_write(cx, &HTTP2_REFUSAL[written..]))? {
                0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                n => written += n,
            }
        }
        if !shut {
            ready!(Pin::new(&mut *io).poll_shutdown(cx))?;
            shut = true;
        }
        loop {
            let mut buf = ReadBuf::new(&mut discard);
            ready!(Pin::new(&mut *io).poll_read(cx, &mut buf))?;
            if buf.filled().is_empty() {
                return Poll::Ready(Ok(()));
            }
        }
    })
    .await
}

/// How long to wait before peeking again at a start that could still be the preface (a client
/// that sent part of it so far). Peeking cannot wait for more bytes than the socket holds: the
/// socket stays readable with what it has. So such a connection (rare: clients send the
/// preface in one piece) polls, from the first pause, doubling up to the last; the server's
/// head read timeout still bounds it.
const FIRST_PAUSE: Duration = Duration::from_millis(1);
const LAST_PAUSE: Duration = Duration::from_millis(100);

/// A connection's protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    Http1,
    /// HTTP/2 with prior knowledge: the preface, in full.
    Http2,
}

/// What the first bytes say.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Protocol(Protocol),
    /// A start of the preface, not all of it yet.
    Undecided,
    /// Nothing: the client closed the connection before sending anything.
    Closed,
}

/// Tells the protocols apart as hyper-util's auto builder does: HTTP/2 if the preface is there
/// in full, HTTP/1 from the first byte that differs from it.
fn classify(first: &[u8]) -> Seen {
    if first.is_empty() {
        Seen::Closed
    } else if !HTTP2_PREFACE.starts_with(first) {
        Seen::Protocol(Protocol::Http1)
    } else if first.len() == HTTP2_PREFACE.len() {
        Seen::Protocol(Protocol::Http2)
    } else {
        Seen::Undecided
    }
}

/// Resolves to the protocol of `stream` once its first bytes tell it, or to `None` if the
/// client closed it first or the server gave up on it ([`cancel`](Detect::cancel)).
pub(crate) struct Detect<'a, S> {
    stream: &'a S,
    /// Before the next peek, while the start is undecided.
    pause: Option<Pin<Box<Sleep>>>,
    next_pause: Duration,
    cancelled: bool,
}

impl<'a, S: Peek> Detect<'a, S> {
    pub(crate) fn new(stream: &'a S) -> Self {
        Detect {
            stream,
            pause: None,
            next_pause: FIRST_PAUSE,
            cancelled: false,
        }
    }

    /// Gives up (the connection sat idle too long, or the server is draining): the next poll
    /// resolves to `None`. Fits the connection registry's graceful shutdown.
    pub(crate) fn cancel(self: Pin<&mut Self>) {
        self.get_mut().cancelled = true;
    }
}

impl<S: Peek> Future for Detect<'_, S> {
    type Output = io::Result<Option<Protocol>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        loop {
            if this.cancelled {
                return Poll::Ready(Ok(None));
            }
            if let Some(pause) = &mut this.pause {
                ready!(pause.as_mut().poll(cx));
                this.pause = None;
            }
            let mut first = [0; HTTP2_PREFACE.len()];
            let peeked = ready!(this.stream.poll_peek(cx, &mut first))?;
            match classify(&first[..peeked]) {
                Seen::Protocol(protocol) => return Poll::Ready(Ok(Some(protocol))),
                Seen::Closed => return Poll::Ready(Ok(None)),
                Seen::Undecided => {
                    this.pause = Some(Box::pin(tokio::time::sleep(this.next_pause)));
                    this.next_pause = (this.next_pause * 2).min(LAST_PAUSE);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;
    use std::task::Waker;

    use tokio::net::TcpListener;

    use super::*;

    #[test]
    fn the_first_bytes_tell_http1_from_the_http2_preface_as_the_auto_builder_does() {
        assert_eq!(classify(b""), Seen::Closed);
        for http1 in [
            &b"GET / HTTP/1.1\r\n"[..],
            b"POST",
            b"PUT",
            b"PATCH",
            b"PROPFIND",
            b"\x16\x03\x01", // a TLS ClientHello: HTTP/1's to refuse
            b"PRI / HTTP/1.1\r\n",
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\r",
        ] {
            assert_eq!(
                classify(http1),
                Seen::Protocol(Protocol::Http1),
                "{}",
                String::from_utf8_lossy(http1)
            );
        }
        for start in 1..HTTP2_PREFACE.len() {
            assert_eq!(
                classify(&HTTP2_PREFACE[..start]),
                Seen::Undecided,
                "{start}"
            );
        }
        assert_eq!(classify(HTTP2_PREFACE), Seen::Protocol(Protocol::Http2));
    }

    /// A connected pair: the client's end and the server's.
    async fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap());
        let (client, accepted) = tokio::join!(client, listener.accept());
        (client.unwrap(), accepted.unwrap().0)
    }

    /// Writes all of `bytes` (tokio's write helpers are behind a feature this crate does not use).
    async fn write(stream: &TcpStream, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            stream.writable().await.unwrap();
            match stream.try_write(bytes) {
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// Polls `detect` once.
    fn poll_once(detect: Pin<&mut Detect<'_, TcpStream>>) -> Poll<io::Result<Option<Protocol>>> {
        detect.poll(&mut Context::from_waker(Waker::noop()))
    }

    #[tokio::test]
    async fn a_preface_in_pieces_is_told_once_it_is_whole_and_nothing_is_taken_off_the_socket() {
        let (client, server) = pair().await;
        let detect = tokio::spawn(async move {
            let protocol = Detect::new(&server).await.unwrap();
            (protocol, server)
        });
        for piece in HTTP2_PREFACE.chunks(5) {
            write(&client, piece).await;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let (protocol, server) = detect.await.unwrap();
        assert_eq!(protocol, Some(Protocol::Http2));
        // hyper reads the preface itself.
        let mut unread = [0; HTTP2_PREFACE.len()];
        assert_eq!(server.try_read(&mut unread).unwrap(), HTTP2_PREFACE.len());
        assert_eq!(&unread, HTTP2_PREFACE);
    }

    #[tokio::test]
    async fn a_client_that_closes_before_sending_anything_has_no_protocol() {
        let (client, server) = pair().await;
        drop(client);
        assert_eq!(Detect::new(&server).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_reset_before_any_byte_is_an_error() {
        let (client, server) = pair().await;
        // Closing with a zero linger sends a reset instead of an orderly end.
        client.set_zero_linger().unwrap();
        drop(client);
        server.readable().await.unwrap();
        let error = Detect::new(&server).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::ConnectionReset);
    }

    #[tokio::test]
    async fn a_cancelled_detection_ends_whether_it_waits_for_bytes_or_for_the_rest_of_the_preface()
    {
        let (_silent, server) = pair().await;
        let mut detect = pin!(Detect::new(&server));
        assert!(poll_once(detect.as_mut()).is_pending());
        detect.as_mut().cancel();
        assert_eq!(detect.await.unwrap(), None);

        let (partial, server) = pair().await;
        write(&partial, &HTTP2_PREFACE[..3]).await;
        server.readable().await.unwrap();
        let mut detect = pin!(Detect::new(&server));
        // "PRI" could still be the preface: it waits, and is not taken for HTTP/1.
        assert!(poll_once(detect.as_mut()).is_pending());
        detect.as_mut().cancel();
        assert_eq!(detect.await.unwrap(), None);
    }
}
