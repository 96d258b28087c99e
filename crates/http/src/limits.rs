//! What a request may cost the server: sizes and times, with defaults that hold against slow
//! or oversized clients.

use std::time::Duration;

/// Limits on every request. The defaults:
///
/// | limit | default | past it |
/// |---|---|---|
/// | `body_bytes` | 1 MiB | 413 (per route: `Route::body_limit`); a body whose `content-length` is past it is refused before it is read, so `expect: 100-continue` gets the 413 instead of `100 Continue` |
/// | `body_read_timeout` | 30 s | 408, and the connection is freed |
/// | `header_read_timeout` | 10 s | connection closed (it applies to any connection with no request in flight: a new one that starts no request, an HTTP/1 head not finished in time, an idle keep-alive or HTTP/2 connection; also an HTTP/2 peer that stops answering pings) |
/// | `response_write_timeout` | 30 s | connection closed (a client that has taken none of the response for that long; one that reads slowly is not cut) |
/// | `max_headers` | 100 (hyper's own: any other value costs every HTTP/1 request, see the field) | 431 (HTTP/1) |
/// | `max_header_bytes` | 64 KiB, at least 8 KiB | 431 (HTTP/1), stream reset (HTTP/2) |
///
/// ```
/// use green_tea::http::{App, Limits};
/// use std::time::Duration;
/// let mut limits = Limits::default();
/// limits.body_read_timeout = Duration::from_secs(5);
/// let app = App::builder().limits(limits).build().unwrap();
/// # let _ = app;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The largest request body a route reads.
    pub body_bytes: usize,
    /// How long reading a whole request body may take.
    pub body_read_timeout: Duration,
    /// How long a connection may go without a request in flight: the time a client has to
    /// start and finish its next request head, and the idle timeout of keep-alive and HTTP/2
    /// connections. Enforced by a sweeper ticking at an eighth of it (at most 1 s), so a
    /// connection is closed between this and about this plus three ticks.
    pub header_read_timeout: Duration,
    /// How long a response may wait on a client that takes none of it: a write to the socket
    /// that cannot proceed (the client is not reading) for this long closes the connection,
    /// and the request leaves flight. A client that reads, however slowly, resets it with
    /// every write that goes through. Checked by the same sweeper (ticking at an eighth of the
    /// shorter of the two timeouts).
    pub response_write_timeout: Duration,
    /// The most headers a request may have (HTTP/1).
    ///
    /// The default, 100, is hyper's own, and the server then leaves it to hyper: hyper keeps a
    /// request's headers in two arrays on the stack, made whole from constants. Any other value
    /// (even 100 passed to hyper explicitly, which is why the server does not) makes hyper
    /// build both arrays element by element on every HTTP/1 request, in loops as long as the
    /// value, a cost that shows in a default release build (`cargo build --release`) and that
    /// LTO mostly removes. Past 100 hyper also allocates both arrays: two heap allocations per
    /// request.
    pub max_headers: usize,
    /// The largest request head, in bytes. For HTTP/1 it is hyper's read buffer, which is at
    /// least 8 KiB: a smaller value acts as 8 KiB.
    pub max_header_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_bytes: 1 << 20,
            body_read_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            response_write_timeout: Duration::from_secs(30),
            max_headers: 100,
            max_header_bytes: 64 << 10,
        }
    }
}
