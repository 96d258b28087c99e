//! An app's life: build, start, workers, close and drop.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod build;
mod close;
mod drop;
mod reload;
mod start;
mod startup;
mod timeouts;
mod workers;
