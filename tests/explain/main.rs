//! `explain` as users read it: text, JSON, the picture and the page (in a headless browser), for keys, modules and workers.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod browser;
mod key;
mod modules;
mod picture;
mod reload;
mod workers;
