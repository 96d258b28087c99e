//! What went wrong while closing: one entry per part that did not close cleanly.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::key::Key;

use super::BoxError;

/// What went wrong in a part of the app: a provider's build or dispose, a module's shutdown hook,
/// the drain.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FailureCause {
    /// It returned an error.
    #[error("{0}")]
    Error(Arc<BoxError>),
    /// It panicked.
    #[error("panicked: {0}")]
    Panicked(String),
    /// A provider returned values that do not match its descriptor.
    #[error("returned {0}")]
    WrongOutput(String),
    /// It did not finish within its timeout; it was abandoned.
    #[error("did not finish within {0:?}")]
    TimedOut(Duration),
    /// The close's whole budget (`shutdown_timeout`, this long) ran out while it ran (or
    /// before it began): it was abandoned, or never run.
    #[error("the shutdown's budget of {0:?} ran out")]
    OutOfBudget(Duration),
}

/// Everything that went wrong while closing: one entry per part that did not close cleanly.
///
/// Every other part was still closed.
#[derive(Clone, thiserror::Error)]
#[error("{} part(s) failed to close:{}", .failures.len(), list_failures(.failures))]
pub struct CloseError {
    /// The failures, in the order they happened.
    pub failures: Vec<CloseFailure>,
}

/// As `Display`: `fn main() -> Result<(), CloseError>` prints the readable report.
impl fmt::Debug for CloseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn list_failures(failures: &[CloseFailure]) -> String {
    failures.iter().map(|f| format!("\n  {f}")).collect()
}

/// One part of the app that did not close cleanly.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{part}: {cause}")]
pub struct CloseFailure {
    /// What was being closed.
    pub part: ClosePart,
    /// What went wrong.
    pub cause: FailureCause,
}

/// A part of the app that `close()` shuts down.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClosePart {
    /// A provider's `dispose`.
    Provider {
        /// The provider's name.
        name: String,
        /// The keys it provided.
        keys: Vec<Key>,
    },
    /// A module's `on_shutdown` hook.
    Module {
        /// The module's path (`shop::notifications`).
        module: String,
    },
    /// A worker: a run that failed during the app's life (its last failure), or a stop that
    /// did not come within the stop timeout.
    Worker {
        /// The worker's name (`orders::relay` in a module).
        worker: String,
    },
    /// Waiting for requests in flight to finish.
    Drain {
        /// How many were still running when the drain timeout passed.
        in_flight: usize,
    },
}

impl fmt::Display for ClosePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClosePart::Provider { name, keys } => {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                write!(f, "provider `{name}` (provides {})", keys.join(", "))
            }
            ClosePart::Module { module } => write!(f, "module `{module}` on_shutdown"),
            ClosePart::Worker { worker } => write!(f, "worker `{worker}`"),
            ClosePart::Drain { in_flight } => {
                write!(f, "draining ({in_flight} request(s) still in flight)")
            }
        }
    }
}
