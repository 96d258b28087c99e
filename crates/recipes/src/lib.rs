//! green-tea's recipes: policies that are application policy, not framework features, written
//! as ordinary providers. Each recipe is a small folder.
//!
//! Like any crate that only adds providers, this one depends on green-tea-core, not on the
//! facade, and declares them with `green_tea_core::provider`; the billing recipe also depends on
//! green-tea-http, whose `HttpError` its guard answers with.
//!
//! - [`circuit_breaker`]: the reference guide's breaker, past its stated limits.
//! - [`billing`]: a billing client and the providers that guard it with a breaker.
//! - `database` (feature `sqlx`): a pool with migrations and a transaction per request that
//!   commits or rolls back with the request's outcome.

pub mod billing;
pub mod circuit_breaker;
#[cfg(feature = "sqlx")]
pub mod database;
