//! What a request may cost the server: sizes and times, with defaults that hold against slow
//! or oversized clients.

use std::time::Duration;

/// Limits on every request. The defaults:
///
/// | limit | default | past it |
/// |---|---|---|
/// | `body_bytes` | 1 MiB | 413 (per route: `Route::body_limit`); a body whose `content-length` is past it is refused before it is read, so `expect: 100-continue` gets the 413 instead of `100 Continue` |
/// | `body_read_timeout` | 30 s | 408, and the connection is freed |
/// | `header_read_timeout` | 10 s | connection closed (it applies to any connection with no request in flight: a new one that starts no request or TLS handshake, an HTTP/1 head not finished in time, an idle keep-alive or HTTP/2 connection) |
/// | `response_write_timeout` | 30 s | connection closed (a client that has taken none of the response for that long, whether its socket is full or, over HTTP/2, it grants no flow-control window; one that reads slowly is not cut) |
/// | `max_headers` | 100 (hyper's own: any other value costs every HTTP/1 request, see the field) | 431 (HTTP/1) |
/// | `max_header_bytes` | 64 KiB | 431 (HTTP/1: the whole head, to the byte); HTTP/2: announced as `SETTINGS_MAX_HEADER_LIST_SIZE`, a larger header list gets 431 and its stream is refused |
/// | `http2_max_concurrent_streams` | 100 | announced in `SETTINGS_MAX_CONCURRENT_STREAMS`; a stream past it is refused |
/// | `http2_max_pending_accept_reset_streams` | 20 | connection closed (`GOAWAY`: the "rapid reset" attack) |
/// | `http2_send_buffer_bytes` | 256 KiB | the response body waits for the client to take what is buffered |
/// | `http2_keep_alive_interval` | 10 s | a PING after that long without a frame from the client |
/// | `http2_keep_alive_timeout` | 20 s | connection closed when the PING is not answered in that time |
///
/// The `http2_*` limits apply where HTTP/2 is served (the feature `http2`); without it they are
/// kept, and change nothing.
///
/// ```
/// use green_tea::App;
/// use green_tea::serve::Limits;
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
    /// The largest request head, in bytes. For HTTP/1 it counts the whole head as it arrives:
    /// the request line, every header line and the blank line that ends them; a head of one
    /// byte more gets 431 and the connection is closed. For HTTP/2 it is the
    /// `SETTINGS_MAX_HEADER_LIST_SIZE` the server announces (counted as RFC 9113 counts it:
    /// each header's name and value plus 32 bytes); a request whose header list is larger
    /// gets 431 and its stream is refused, the connection stays.
    pub max_header_bytes: usize,
    /// The most HTTP/2 streams (requests) a client may have open at once on one connection,
    /// announced in `SETTINGS_MAX_CONCURRENT_STREAMS`; a stream past it is refused.
    ///
    /// Default 100: RFC 9113 (section 6.5.2) asks for no less, so that a browser's parallel
    /// requests are not held back, and it bounds what one connection can have in flight (and
    /// buffered, with `http2_send_buffer_bytes`) to half of hyper's own default of 200.
    pub http2_max_concurrent_streams: u32,
    /// How many HTTP/2 streams a client may open and reset before the server has accepted
    /// them; past it the connection is closed with `GOAWAY`. This is the defence against the
    /// "rapid reset" attack (CVE-2023-44487), where a client opens and cancels streams faster
    /// than the server can notice, making it start work for requests nobody waits for.
    ///
    /// Default 20, hyper's and h2's own: the value their authors chose for that attack, far
    /// above what a client cancelling requests in earnest reaches.
    pub http2_max_pending_accept_reset_streams: usize,
    /// How many bytes of one HTTP/2 response may sit in the server's buffer waiting for the
    /// client's flow-control window or the socket; the response body is not read further
    /// until they drain.
    ///
    /// Default 256 KiB: four of HTTP/2's initial 64 KiB windows, enough to keep a large
    /// download's pipe full, while a client that opens `http2_max_concurrent_streams` streams
    /// and reads none of them can make a connection buffer at most 25 MiB (with hyper's
    /// default of 400 KiB and its 200 streams, 78 MiB). A response that cannot move is cut
    /// after `response_write_timeout`.
    pub http2_send_buffer_bytes: usize,
    /// After how long without a frame from the client the server sends an HTTP/2 PING, to
    /// find out whether it is still there; `None` sends none.
    ///
    /// Default 10 s. An HTTP/2 connection with no request in flight is closed after
    /// `header_read_timeout` anyway, so the pings matter for a connection with requests in
    /// flight whose client vanished without a FIN (a laptop closed, a NAT entry dropped):
    /// without them its requests would run, and hold `close()`, until they end by themselves.
    /// A connection that receives frames sends no pings.
    pub http2_keep_alive_interval: Option<Duration>,
    /// How long the client has to answer a keep-alive PING before the connection is closed.
    ///
    /// Default 20 s: a vanished client is noticed within half a minute of its last frame,
    /// and a client on a congested mobile link, whose answer waits behind the data it is
    /// receiving, is not taken for gone.
    pub http2_keep_alive_timeout: Duration,
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
            http2_max_concurrent_streams: 100,
            http2_max_pending_accept_reset_streams: 20,
            http2_send_buffer_bytes: 256 << 10,
            http2_keep_alive_interval: Some(Duration::from_secs(10)),
            http2_keep_alive_timeout: Duration::from_secs(20),
        }
    }
}
