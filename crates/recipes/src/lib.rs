//! green-tea's recipes: policies that are application policy, not framework features, written
//! as ordinary providers. Each recipe is a small folder.
//!
//! - [`circuit_breaker`]: the reference guide's breaker, past its stated limits.

pub mod circuit_breaker;
