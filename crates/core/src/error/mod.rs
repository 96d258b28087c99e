//! The errors of each phase, a file each: `BuildError` (validation, `build.rs`, rendered by
//! `render.rs`), `ProvideError` (building values, `provide.rs`) and `CloseError` (disposing
//! them, `close.rs`); what they share is here, and a panic's message in `panic.rs`. Data first;
//! `Display` renders it.

mod build;
mod close;
mod panic;
mod provide;
mod render;

pub use build::{BuildError, Problem, Unregistered};
pub use close::{CloseError, CloseFailure, ClosePart, FailureCause};
pub use panic::{join_message, panic_message};
pub use provide::{ProvideError, StillBuilding};

use std::fmt;

use crate::key::{Key, Location};

/// Any error a provider's `provide` or `dispose` may return.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What kind of declaration a graph node came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NodeKind {
    /// A provider (`#[provider]` or `.provider(p)`).
    Provider,
    /// A ready value (`.value("key", v)`).
    Value,
    /// A test override (`.override_value` / `.override_provider`).
    Override,
    /// A decorator (`#[decorator]` or `.decorator(p)`): wraps the value of a key that
    /// something else provides.
    Decorator,
    /// A collection (`notifiers[]`, `stores{}`): what `build()` adds for a key that providers
    /// contribute to, holding every contribution.
    Collection,
    /// A settings type (`#[derive(Settings)]`, or `T::provider()`): its value read from
    /// defaults, the file and the environment at `build()`.
    Settings,
    /// A request-scoped step.
    Step,
    /// A route's handler, which only consumes.
    Route,
    /// A worker (`#[worker]` or `.worker(w)`): a long-running task of the app, which only
    /// consumes.
    Worker,
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeKind::Provider => "provider",
            NodeKind::Value => "value",
            NodeKind::Override => "override",
            NodeKind::Decorator => "decorator",
            NodeKind::Collection => "collection",
            NodeKind::Settings => "settings",
            NodeKind::Step => "step",
            NodeKind::Route => "route",
            NodeKind::Worker => "worker",
        })
    }
}

/// A declaration named in an error: what it is, its name and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Origin {
    /// Provider, value, override, step or route.
    pub kind: NodeKind,
    /// Its name (for a value, `` value `key` ``).
    pub name: String,
    /// Where it was declared.
    pub location: Location,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            // A value's name already says what it is.
            NodeKind::Value => write!(f, "{} ({})", self.name, self.location),
            NodeKind::Route => write!(f, "route {} ({})", self.name, self.location),
            // `.override_value` names its declaration like a value: "value `clock`".
            NodeKind::Override if self.name.starts_with("value `") => {
                write!(f, "override {} ({})", self.name, self.location)
            }
            kind => write!(f, "{kind} `{}` ({})", self.name, self.location),
        }
    }
}

/// A near-miss key offered as "did you mean".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The key that exists.
    pub key: Key,
    /// Where its provider was declared.
    pub location: Location,
}
