//! The circuit breaker and the billing client it guards: the reference model, half-open trials, concurrency, metrics and settings.
//!
//! One binary for the area, so that it links once; each module is one topic.

mod arbitrary;
mod billing_client;
mod billing_settings;
mod concurrency;
mod half_open;
mod metrics;
mod model;
