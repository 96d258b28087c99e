//! loom models of green-tea's hand-rolled synchronisation: the circuit breaker's lock-free
//! closed path and the app's in-flight count. The modelled files are green-tea's own, included
//! by path; `cfg(green_tea_loom)` (set by this crate's build script) gives them loom's atomics
//! and locks in place of std's. Everything else here is a test: `cargo test --release`.

// `pub`: the models use part of each, and the rest is not dead code.
#[cfg(test)]
#[path = "../../crates/recipes/src/circuit_breaker/mod.rs"]
pub mod circuit_breaker;

#[cfg(test)]
#[path = "../../crates/http/src/in_flight/count.rs"]
pub mod in_flight_count;

#[cfg(test)]
mod breaker;
#[cfg(test)]
mod in_flight;
#[cfg(test)]
mod model;
