//! What an app tells: its built-in routes, metrics through real recorders (and promtool), and traces through OpenTelemetry.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod built_in;
#[cfg(feature = "metrics")]
mod metrics;
mod otel;
#[cfg(feature = "metrics")]
mod promtool;
