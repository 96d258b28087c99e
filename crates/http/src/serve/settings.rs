//! hyper's connection settings, from [`Limits`]: one definition for the server's HTTP/1 and
//! HTTP/2 builders, which the in-memory harnesses use too.
//!
//! A setting is passed to hyper only where it changes something, because some explicit values
//! cost on every request what hyper's default does not (see `Limits::max_headers`).

use hyper::server::conn::http1;
#[cfg(feature = "http2")]
use hyper::server::conn::http2;
#[cfg(feature = "http2")]
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::limits::Limits;

/// hyper's own limit on an HTTP/1 request's headers, which it keeps in arrays on the stack,
/// made whole from constants. Any explicit value, even this one, makes hyper build both arrays
/// element by element on every request (and past it, also allocate them): so it is passed only
/// when it differs.
pub(crate) const HYPER_MAX_HEADERS: usize = 100;

/// hyper's smallest HTTP/1 read buffer (`max_buf_size` panics below it).
pub(crate) const HYPER_MIN_BUF_SIZE: usize = 8192;

/// Applies `limits` to an HTTP/1 builder. The head read timeout is the sweeper's
/// (`connections.rs`), not hyper's per-request timer.
fn http1_settings(builder: &mut http1::Builder, limits: &Limits) {
    builder
        .header_read_timeout(None)
        // The head's own limit, to the byte and start line included (431 past it). The read
        // buffer bounds the bytes read at once, not the head: alone it let heads of up to about
        // twice the limit through.
        .max_header_size(limits.max_header_bytes)
        .max_buf_size(limits.max_header_bytes.max(HYPER_MIN_BUF_SIZE));
    if limits.max_headers != HYPER_MAX_HEADERS {
        builder.max_headers(limits.max_headers);
    }
}

/// Applies `limits` to an HTTP/2 builder. Every limit is passed, even where it equals hyper's
/// default, so that a change of hyper's defaults does not change what the server announces
/// (the values are chosen in `Limits`). hyper's timer is for the keep-alive pings: one timer
/// per connection, none per request.
#[cfg(feature = "http2")]
fn http2_settings(builder: &mut http2::Builder<TokioExecutor>, limits: &Limits) {
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
}

/// The server's HTTP/1 and HTTP/2 connection builders, with `limits` applied; each connection
/// picks one from its first bytes (`protocol.rs`).
///
/// Public but hidden for the tests and fuzz targets that drive one connection in memory: they
/// serve it with these builders, not a copy of their settings. (hyper-util's auto builder,
/// which reads the first bytes itself, has no HTTP/1 head size limit.)
#[doc(hidden)]
#[derive(Debug)]
pub struct ConnectionBuilders {
    /// For HTTP/1 connections.
    pub http1: http1::Builder,
    /// For HTTP/2 connections (prior knowledge, or ALPN `h2` over TLS).
    #[cfg(feature = "http2")]
    pub http2: http2::Builder<TokioExecutor>,
}

impl ConnectionBuilders {
    /// Both builders, configured as [`App::serve`](crate::App::serve) configures its own.
    pub fn new(limits: &Limits) -> Self {
        let mut builders = ConnectionBuilders {
            http1: http1::Builder::new(),
            #[cfg(feature = "http2")]
            http2: http2::Builder::new(TokioExecutor::new()),
        };
        http1_settings(&mut builders.http1, limits);
        #[cfg(feature = "http2")]
        http2_settings(&mut builders.http2, limits);
        builders
    }
}
