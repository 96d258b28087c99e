//! green-tea's recipes: policies that are application policy, not framework features, written
//! as ordinary providers. Each recipe is a small folder.
//!
//! - [`circuit_breaker`]: the reference guide's breaker, past its stated limits.
//! - [`billing`]: a billing client and the providers that guard it with a breaker.

pub mod billing;
pub mod circuit_breaker;
