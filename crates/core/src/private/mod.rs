//! What green-tea's other crates use of the core and users do not: the one hidden module of
//! core. Not a public API: it may change in any release.
//!
//! Two readers. At the top, what `#[provider]` (and `#[decorator]`, `#[worker]`) expands to,
//! so that a crate that only adds providers depends on core alone (the facade's `__private`
//! re-exports all of it, for the expansions that go through the facade). One concept per
//! file: `probe` (the type probe that reports a bad type once and keeps it from failing every
//! line that uses it), `returns` (what a provider's fns may return), `futures` (a provider's
//! futures, for state that is `Send + Sync`), `discover` (how `discover()` makes a provider
//! struct), `nested` (the nested fields of a `#[derive(Settings)]` type); here, the check that
//! a decorator returns the type it decorates. In [`layer`], the core as green-tea-http builds on
//! it: building, modules, a request's values, workers, explain, by purpose.

mod discover;
mod futures;
pub mod layer;
mod nested;
mod probe;
mod returns;

pub use crate::descriptor::Descriptor;
pub use crate::error::{BoxError, NodeKind};
pub use crate::key::Location;
pub use crate::provider::{Discovered, Provider, Registration};
pub use crate::registry::DeclaredKey;
/// What `#[derive(Settings)]` expands to: the trait, `FieldSpec`, `Reader`, `Secret`.
pub use crate::settings;
pub use crate::value::{NeedError, Needs, Provided};
/// What `#[worker]` expands to.
pub use crate::worker::{Restart, Shutdown, Worker, WorkerFuture, WorkerOptions};
pub use inventory;

pub use discover::Discoverable;
pub use futures::{SharedProviderState, UnsharedProviderState};
pub use nested::{Nested, NestedProbe, NotNested, assert_nested};
pub use probe::{GraphValue, NotAGraphValue, TypeProbe, ValueIsAny, ValueIsSendSync, ValueIsSync};
pub use returns::{DisposeOutput, provide_ok, provide_result};

/// Implemented by `T` alone: the bound that reports a `#[decorator]` returning another type
/// than the one it decorates, at its return type.
#[diagnostic::on_unimplemented(
    message = "a decorator returns a value of the type it decorates: `{Self}` is not `{T}`",
    label = "must be `{T}`, the type of the decorated value (the first parameter)",
    note = "consumers of the key get what the decorator returns in place of the value it \
            wraps, so both have the key's type"
)]
pub trait DecoratedType<T> {}

impl<T> DecoratedType<T> for T {}

/// Fails to compile, pointing at a decorator's return type, unless it is `T`, the type of the
/// value the decorator takes.
pub fn assert_decorates<T, R: DecoratedType<T>>() {}
