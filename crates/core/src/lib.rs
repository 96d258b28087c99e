//! green-tea's core: keys, the [`Provider`] trait, the graph checked at build, the
//! [`Container`] that builds it lazily and single-flight and closes it in reverse, and the
//! [`Explain`] model.
//!
//! There is no HTTP here; crates that add providers (recipes, plugins) depend on this crate
//! alone. Applications use the `green-tea` facade, which re-exports what they write.

mod container;
mod descriptor;
mod error;
mod explain;
mod graph;
mod health;
mod ids;
mod key;
pub mod metric;
mod picture;
mod provider;
mod provider_fn;
mod registry;
mod scope;
mod value;

#[doc(hidden)]
#[path = "private/mod.rs"]
pub mod __private;

pub use container::{Container, ContainerBuilder, Resolver};
pub use descriptor::Descriptor;
pub use error::{
    BoxError, BuildError, CloseError, CloseFailure, ClosePart, FailureCause, NodeKind, Origin,
    Problem, ProvideError, Suggestion, Unregistered,
};
pub use explain::{Explain, ExplainKey, ExplainNeed, ExplainNode};
pub use graph::Scope;
pub use health::{Check, CheckStatus, ContainerHealth, HealthCheck, ProviderHealth, ProviderState};
pub use key::{Key, KeySpec, Location, TypeInfo};
pub use provider::Provider;
pub use provider_fn::ProviderFn;
pub use value::{NeedError, Needs, Provided};
