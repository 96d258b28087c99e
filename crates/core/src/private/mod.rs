//! What green-tea's other crates use of the core and users do not: the one hidden module of
//! core. Not a public API: it may change in any release.
//!
//! Two readers: the macros' expansions (through the facade's `__private`, which re-exports
//! these), at the top; and green-tea-http, in `sibling`.

pub mod sibling;

pub use crate::provider::{Discovered, Registration};
pub use crate::registry::DeclaredKey;
pub use inventory;
