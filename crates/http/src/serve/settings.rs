//! hyper's connection settings, from [`Limits`]: one definition for the server's own HTTP/1
//! and HTTP/2 builders and for hyper-util's auto builder (which the in-memory harnesses use).
//!
//! A setting is passed to hyper only where it changes something, because some explicit values
//! cost on every request what hyper's default does not (see `Limits::max_headers`).

use hyper::server::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use hyper_util::server::conn::auto;

use crate::limits::Limits;

/// hyper's own limit on an HTTP/1 request's headers, which it keeps in arrays on the stack,
/// made whole from constants. Any explicit value, even this one, makes hyper build both arrays
/// element by element on every request (and past it, also allocate them): so it is passed only
/// when it differs.
pub(crate) const HYPER_MAX_HEADERS: usize = 100;

/// hyper's smallest HTTP/1 read buffer (`max_buf_size` panics below it).
pub(crate) const HYPER_MIN_BUF_SIZE: usize = 8192;

/// Applies `limits` to an HTTP/1 builder: hyper's `http1::Builder` or the auto builder's
/// `Http1Builder`, which spell their settings the same. The head read timeout is the sweeper's
/// (`connections.rs`), not hyper's per-request timer.
macro_rules! http1_settings {
    ($builder:expr, $limits:expr) => {{
        let limits: &Limits = $limits;
        let builder = $builder;
        builder
            .header_read_timeout(None)
            .max_buf_size(limits.max_header_bytes.max(HYPER_MIN_BUF_SIZE));
        if limits.max_headers != HYPER_MAX_HEADERS {
            builder.max_headers(limits.max_headers);
        }
    }};
}

/// Applies `limits` to an HTTP/2 builder (hyper's or the auto builder's). Every limit is
/// passed, even where it equals hyper's default, so that a change of hyper's defaults does not
/// change what the server announces (the values are chosen in `Limits`). hyper's timer is for
/// the keep-alive pings: one timer per connection, none per request.
macro_rules! http2_settings {
    ($builder:expr, $limits:expr) => {{
        let limits: &Limits = $limits;
        let builder = $builder;
        builder
            .timer(TokioTimer::new())
            .max_header_list_size(u32::try_from(limits.max_header_bytes).unwrap_or(u32::MAX))
            .max_concurrent_streams(limits.http2_max_concurrent_streams)
            .max_pending_accept_reset_streams(limits.http2_max_pending_accept_reset_streams)
            // hyper panics on a send buffer past u32::MAX (h2's limit): keep it below.
            .max_send_buf_size(limits.http2_send_buffer_bytes.min(u32::MAX as usize))
            // A peer that stops answering pings is gone: free its connection.
            .keep_alive_interval(limits.http2_keep_alive_interval)
            .keep_alive_timeout(limits.http2_keep_alive_timeout);
    }};
}

/// The server's HTTP/1 and HTTP/2 builders, shared by its connections (each connection picks
/// one from its first bytes: `protocol.rs`).
pub(crate) struct Http {
    pub(crate) http1: http1::Builder,
    pub(crate) http2: http2::Builder<TokioExecutor>,
}

impl Http {
    pub(crate) fn new(limits: &Limits) -> Self {
        let mut http = Http {
            http1: http1::Builder::new(),
            http2: http2::Builder::new(TokioExecutor::new()),
        };
        http1_settings!(&mut http.http1, limits);
        http2_settings!(&mut http.http2, limits);
        http
    }
}

/// HTTP/1 and HTTP/2 with `limits` on request heads, configured as [`App::serve`] configures
/// its own builders, in hyper-util's auto builder. [`App::serve`] itself does not use the auto
/// builder (it tells the protocols apart without buffering the first bytes: `protocol.rs`), but
/// the tests and fuzz targets that drive one connection in memory do, with these settings
/// rather than a copy of them. Public but hidden for them.
///
/// [`App::serve`]: crate::App::serve
#[doc(hidden)]
pub fn http_builder(limits: &Limits) -> auto::Builder<TokioExecutor> {
    let mut http = auto::Builder::new(TokioExecutor::new());
    http1_settings!(&mut http.http1(), limits);
    http2_settings!(&mut http.http2(), limits);
    http
}
