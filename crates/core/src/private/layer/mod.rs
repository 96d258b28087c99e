//! The core as the layer above it (green-tea-http) builds on it: hidden from users, each item
//! documented and used for one purpose. Not a public API: it may change in any release.
//!
//! - [`build`]: the whole app checked at `build()`, with the layer's steps and routes;
//! - [`modules`]: a module registered with the core and extended by the layer above;
//! - [`values`]: what a request reads, by the ids of its route's plan (the request path);
//! - [`workers`]: what the app starts and stops of the container's workers;
//! - [`explain`]: the slices, members and picture model of the layer's `explain`;
//! - [`failures`]: what a failed task says;
//! - [`switches`]: what an app's `when` puts under its condition;
//! - [`reload`]: the next generation of the container, built for the app to check and swap.

pub mod build;
pub mod explain;
pub mod failures;
pub mod lock;
pub mod modules;
pub mod reload;
pub mod switches;
pub mod values;
pub mod workers;
