//! What holds under load and faults: single-flight under concurrency, failing and hanging providers, and shutdown with requests in flight.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod concurrency;
mod faults;
mod shutdown;
