//! Why a value could not be had from a container.

use std::fmt;

use crate::key::{Key, TypeInfo};

use super::{FailureCause, NodeKind};

/// Why a value could not be had from a container.
///
/// A mistake in the asking has a code and a page ([`code`](Self::code)): a key nothing
/// provides (GT0101), a type other than the key's (GT0102), a container that is closed
/// (GT0103). A build that failed carries the provider's own error, and has none.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ProvideError {
    /// GT0101: no provider provides the key.
    #[error("error[GT0101]: no provider for `{key}`{}", suggestion_text(.suggestion))]
    UnknownKey {
        /// The key asked for.
        key: Key,
        /// The closest existing key.
        suggestion: Option<Key>,
    },
    /// GT0106: the key's provider is switched off in today's shape.
    #[error("error[GT0106]: `{key}` is off in this shape: {name} provides it only {on}")]
    SwitchedOff {
        /// The key asked for.
        key: Key,
        /// The declaration that provides it where it is on.
        name: String,
        /// Where it is on: ``when `cacheOn` = true``.
        on: String,
    },
    /// GT0102: the key exists with another type.
    #[error("error[GT0102]: `{key}` has type `{provided}`, but was asked for as `{requested}`")]
    WrongType {
        /// The key asked for.
        key: Key,
        /// Its declared type.
        provided: TypeInfo,
        /// The type asked for.
        requested: TypeInfo,
    },
    /// A provider in the key's slice failed to build. Not cached: the next request retries.
    #[error(
        "{kind} `{provider}`{} failed: {cause}{}",
        keys_text(.provider, .keys),
        needed_by_text(.needed_by)
    )]
    Failed {
        /// What failed: a provider, a decorator, a collection...
        kind: NodeKind,
        /// The declaration that failed (its name).
        provider: String,
        /// The keys it provides.
        keys: Vec<Key>,
        /// Who needed it, nearest first, ending at the provider that was asked for.
        needed_by: Vec<String>,
        /// What went wrong.
        cause: FailureCause,
    },
    /// GT0103: the container was closed.
    #[error("error[GT0103]: the container is closed")]
    Closed,
    /// GT0107: `start()` ran past its budget; what was still building then, and what each
    /// waited on. The builds were stopped and what was built disposed.
    #[error(
        "error[GT0107]: the start did not finish within {}{}",
        humantime::format_duration(*.timeout),
        still_building_text(.building)
    )]
    StartTimedOut {
        /// The start's budget.
        timeout: std::time::Duration,
        /// Each build still running, in build order.
        building: Vec<StillBuilding>,
    },
}

/// As `Display`: `fn main() -> Result<(), ProvideError>` prints the readable report.
impl fmt::Debug for ProvideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl ProvideError {
    /// The error code, such as `"GT0101"`, with a page `docs/errors/<code>.md`; `None` for a
    /// build that failed, whose cause is the provider's own error.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            ProvideError::UnknownKey { .. } => Some("GT0101"),
            ProvideError::SwitchedOff { .. } => Some("GT0106"),
            ProvideError::WrongType { .. } => Some("GT0102"),
            ProvideError::Closed => Some("GT0103"),
            ProvideError::StartTimedOut { .. } => Some("GT0107"),
            ProvideError::Failed { .. } => None,
        }
    }

    pub(crate) fn needed_by(mut self, dependent: &str) -> Self {
        if let ProvideError::Failed { needed_by, .. } = &mut self {
            needed_by.push(dependent.to_owned());
        }
        self
    }
}

fn suggestion_text(s: &Option<Key>) -> String {
    s.as_ref()
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

/// ` (of `db`)`: the keys of a provider whose name is not its one key.
fn keys_text(provider: &str, keys: &[Key]) -> String {
    match keys {
        [] => String::new(),
        [key] if key.as_str() == provider => String::new(),
        keys => {
            let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
            format!(" (of {})", keys.join(", "))
        }
    }
}

fn needed_by_text(chain: &[String]) -> String {
    chain.iter().map(|p| format!(", needed by `{p}`")).collect()
}

/// A build still running when the start ran past its budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StillBuilding {
    /// The provider, by its qualified name.
    pub provider: String,
    /// The providers it was still waiting on (none: it was in its own `provide`).
    pub waiting_on: Vec<String>,
    /// The providers that were waiting on it, not built yet.
    pub waited_on_by: Vec<String>,
}

/// ``; still building: `pg` (in its own build; `migrations` waits on it)``.
fn still_building_text(building: &[StillBuilding]) -> String {
    if building.is_empty() {
        return String::new();
    }
    let quoted = |names: &[String]| -> String {
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        names.join(", ")
    };
    let each: Vec<String> = building
        .iter()
        .map(|b| {
            let doing = match b.waiting_on.as_slice() {
                [] => "in its own build".to_owned(),
                waiting => format!("waiting on {}", quoted(waiting)),
            };
            let waited = match b.waited_on_by.as_slice() {
                [] => String::new(),
                [one] => format!("; `{one}` waits on it"),
                many => format!("; {} wait on it", quoted(many)),
            };
            format!("`{}` ({doing}{waited})", b.provider)
        })
        .collect();
    format!("; still building: {}", each.join(", "))
}
