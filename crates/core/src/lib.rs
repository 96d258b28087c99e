//! green-tea's core: keys, the [`Provider`] trait, the graph checked at build, the
//! [`Container`] that builds it lazily and single-flight and closes it in reverse, and the
//! [`Explain`] model.
//!
//! There is no HTTP here; crates that add providers (recipes, plugins) depend on this crate
//! alone. Applications use the `green-tea` facade, which re-exports all of it.

mod container;
mod error;
mod explain;
mod graph;
mod key;
mod provider;
mod provider_fn;
mod value;
mod wiring;

pub use async_trait::async_trait;
pub use container::{Container, ContainerBuilder, Resolver};
pub use error::{
    BoxError, BuildError, CloseError, CloseFailure, ClosePart, DisposeCause, FailureCause,
    NodeKind, Origin, Problem, ProvideError, Suggestion,
};
#[doc(hidden)]
pub use error::{join_message, panic_message};
#[doc(hidden)]
pub use explain::dot_quote;
pub use explain::{Explain, ExplainKey, ExplainNeed, ExplainNode};
pub use graph::Scope;
#[doc(hidden)]
pub use graph::closest;
pub use key::{Key, KeySpec, Location, TypeInfo};
pub use provider::{Provider, ProviderDescriptor, Registration, in_modules};
pub use provider_fn::ProviderFn;
pub use value::{NeedError, Needs, Provided};
pub use wiring::{AppValue, Declaration, Source, Wiring};

/// What the macros expand to. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
}
