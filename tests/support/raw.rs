//! Raw TCP: hand-written request bytes sent to a served app, and what came back, read without
//! an HTTP client that would refuse to send (or to read) anything hostile.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long one read may wait before the server is said to hang. Only a bound: a correct
/// server answers (or closes) long before it.
pub const READ_BOUND: Duration = Duration::from_secs(10);

/// One piece of what a client sends: bytes, or a pause (to be slower than a server timeout).
#[derive(Clone, Debug)]
pub enum Part {
    Bytes(Vec<u8>),
    Pause(Duration),
}

impl Part {
    pub fn text(text: &str) -> Part {
        Part::Bytes(text.as_bytes().to_vec())
    }
}

/// What the server did with a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It answered with this status (the first status line it sent).
    Status(u16),
    /// It closed the connection (EOF or reset) without sending a status line.
    Closed,
    /// It sent bytes that are not an HTTP/1 status line (such as HTTP/2 frames).
    NotHttp1(usize),
    /// Neither an answer nor a close within [`READ_BOUND`].
    Hung,
}

impl Outcome {
    pub fn is_server_error(&self) -> bool {
        matches!(self, Outcome::Status(s) if *s >= 500)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Status(status) => write!(f, "{status}"),
            Outcome::Closed => f.write_str("closed"),
            Outcome::NotHttp1(n) => write!(f, "{n} non-HTTP/1 bytes, then closed"),
            Outcome::Hung => f.write_str("HUNG"),
        }
    }
}

/// A connection to `addr`.
pub async fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr)
        .await
        .expect("connect to the server");
    stream.set_nodelay(true).expect("set TCP_NODELAY");
    stream
}

/// Sends `parts` in order. A write that fails means the server already closed (or reset) the
/// connection, which is an answer too: the caller reads what came back before it.
pub async fn send(stream: &mut TcpStream, parts: &[Part]) -> bool {
    for part in parts {
        match part {
            Part::Bytes(bytes) => {
                if stream.write_all(bytes).await.is_err() || stream.flush().await.is_err() {
                    return false;
                }
            }
            Part::Pause(pause) => tokio::time::sleep(*pause).await,
        }
    }
    true
}

/// Reads until the end of a response head, or the close of the connection, and says which.
pub async fn read_outcome(stream: &mut TcpStream) -> Outcome {
    let mut seen = Vec::new();
    let mut buf = [0_u8; 4096];
    loop {
        let read = match tokio::time::timeout(READ_BOUND, stream.read(&mut buf)).await {
            Err(_elapsed) => return Outcome::Hung,
            Ok(Ok(n)) => n,
            // A reset after the server gave up on us: whatever arrived before it counts.
            Ok(Err(_)) => 0,
        };
        if read == 0 {
            return classify(&seen).unwrap_or(if seen.is_empty() {
                Outcome::Closed
            } else {
                Outcome::NotHttp1(seen.len())
            });
        }
        seen.extend_from_slice(&buf[..read]);
        // Not a whole status line yet, or not HTTP/1 at all (an HTTP/2 server's frames):
        // read on until there is one, or the server closes.
        if let Some(outcome) = classify(&seen) {
            return outcome;
        }
    }
}

/// The status of the first final response in `seen`, if one has begun: an interim response
/// (`100 Continue`) is skipped once its head is complete.
fn classify(mut seen: &[u8]) -> Option<Outcome> {
    loop {
        let line_end = seen.windows(2).position(|w| w == b"\r\n")?;
        let line = std::str::from_utf8(&seen[..line_end]).ok()?;
        let mut words = line.split(' ');
        if !words.next()?.starts_with("HTTP/1.") {
            return None;
        }
        let status: u16 = words.next()?.parse().ok()?;
        if !(100..200).contains(&status) || status == 101 {
            return Some(Outcome::Status(status));
        }
        let head_end = seen.windows(4).position(|w| w == b"\r\n\r\n")?;
        seen = &seen[head_end + 4..];
    }
}

/// Whether the server closes the connection (EOF or reset) within [`READ_BOUND`], discarding
/// anything else it sends first.
pub async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut buf = [0_u8; 4096];
    loop {
        match tokio::time::timeout(READ_BOUND, stream.read(&mut buf)).await {
            Err(_elapsed) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

/// Sends `parts` on a new connection and says what the server did.
pub async fn exchange(addr: SocketAddr, parts: &[Part]) -> Outcome {
    let mut stream = connect(addr).await;
    send(&mut stream, parts).await;
    read_outcome(&mut stream).await
}

/// The status of a well-formed `GET path` on a new connection (`Closed` if there was none).
pub async fn healthy_get(addr: SocketAddr, path: &str) -> Outcome {
    let request = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
    exchange(addr, &[Part::text(&request)]).await
}
