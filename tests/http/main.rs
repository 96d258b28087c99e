//! The HTTP layer over loopback and in process: requests, extractors, steps, layers, health, limits, TLS, Unix sockets, upgrades, and closing.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod async_send_sync;
mod basics;
mod body_extractors;
mod build_errors;
mod client_addr;
mod close;
mod debug;
mod explain;
mod extract;
mod finish;
#[cfg(feature = "http2")]
mod h2_limits;
mod health;
mod health_async;
mod hostile;
mod interop;
mod layers;
mod loopback;
mod module_shutdown;
mod modules;
mod mount;
mod path_params;
mod request_span;
mod slow_readers;
mod step_futures;
mod streaming;
#[cfg(feature = "tls")]
mod tls;
mod unix_socket;
mod upgrade;
