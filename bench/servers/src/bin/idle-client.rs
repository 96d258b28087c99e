//! `idle-client HOST:PORT N`: opens N keep-alive HTTP/1.1 connections, sends `GET /health` on
//! each and reads its whole response, then leaves them all open and idle. Prints `ready N` once
//! every connection has its answer, then waits for a line on standard input; at that line it
//! prints `open K`, how many of the N the server has not closed meanwhile, and exits (closing
//! them). `bench/idle-memory.sh` reads the server's memory between the two.
//!
//! A process of its own, so that the server's memory is the server's alone. Exits non-zero if a
//! connection cannot be made or gets anything but a complete 200.

use std::io::BufRead;

use tokio::net::TcpStream;
use tokio::task::JoinSet;

/// Connections being opened at once: enough to open thousands a second, few enough not to
/// overflow the server's accept backlog.
const AT_ONCE: usize = 128;

const REQUEST: &[u8] = b"GET /health HTTP/1.1\r\nhost: localhost\r\n\r\n";

fn main() {
    let mut args = std::env::args().skip(1);
    let address = args.next().expect("usage: idle-client HOST:PORT N");
    let count: usize = args
        .next()
        .and_then(|n| n.parse().ok())
        .expect("usage: idle-client HOST:PORT N");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let mut open = Vec::with_capacity(count);
        let mut opening = JoinSet::new();
        for _ in 0..count {
            if opening.len() == AT_ONCE {
                open.push(next(&mut opening).await);
            }
            opening.spawn(one_request(address.clone()));
        }
        while !opening.is_empty() {
            open.push(next(&mut opening).await);
        }
        println!("ready {}", open.len());
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).expect("stdin");
        println!("open {}", open.iter().filter(|s| still_open(s)).count());
    });
}

/// The next connection to have its answer, taken out of tokio (so that checking it later reads
/// the socket itself, not readiness the runtime has cached).
async fn next(opening: &mut JoinSet<TcpStream>) -> std::net::TcpStream {
    opening
        .join_next()
        .await
        .expect("a connection being opened")
        .expect("the connection task does not panic")
        .into_std()
        .expect("a socket")
}

/// A connection that has sent `GET /health` and read the whole answer.
async fn one_request(address: String) -> TcpStream {
    let stream = TcpStream::connect(&address).await.expect("connect");
    let mut sent = 0;
    while sent < REQUEST.len() {
        stream.writable().await.expect("writable");
        match stream.try_write(&REQUEST[sent..]) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("write: {e}"),
        }
    }
    let mut response = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(length) = complete_length(&response) {
            assert_eq!(response.len(), length, "one response, nothing more");
            assert!(response.starts_with(b"HTTP/1.1 200"), "a 200");
            return stream;
        }
        stream.readable().await.expect("readable");
        match stream.try_read(&mut chunk) {
            Ok(0) => panic!("the server closed the connection before answering"),
            Ok(n) => response.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("read: {e}"),
        }
    }
}

/// The length of the whole response (head and `content-length` body) once its head is in.
fn complete_length(response: &[u8]) -> Option<usize> {
    let head_end = response.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&response[..head_end]).expect("an ASCII head");
    let body = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().expect("a length"))
        })
        .expect("the servers answer /health with a content-length");
    (response.len() >= head_end + body).then_some(head_end + body)
}

/// Whether the server has left the connection open: nothing to read, no end of stream.
/// (The socket is still non-blocking, as tokio left it.)
fn still_open(stream: &std::net::TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(stream.peek(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}
