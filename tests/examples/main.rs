//! The examples as users run them: the shop, the testing example, and every example as a process.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod auth;
mod shop;
#[cfg(all(feature = "metrics", feature = "tls"))]
mod smoke;
mod testing;
