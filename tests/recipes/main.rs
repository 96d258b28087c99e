//! The recipes in the orders example: billing behind its breaker, and the breaker shared through Redis by a fleet of processes.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

#[cfg(feature = "metrics")]
mod orders;
mod shared_breaker;
