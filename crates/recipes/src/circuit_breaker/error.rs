//! What a guarded call returns when it did not succeed.

use std::time::Duration;

/// Why a call through the breaker failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BreakerError<E> {
    /// The breaker is open (or half-open with every trial slot taken): the operation was not
    /// called. Try again after `retry_after`.
    #[error("the circuit is open; retry after {retry_after:?}")]
    Open {
        /// How long until the breaker lets a trial through (zero if a trial is under way).
        retry_after: Duration,
    },
    /// The operation did not finish within the call timeout; it was cancelled.
    #[error("the call did not finish within {0:?}")]
    Timeout(Duration),
    /// The operation's own error.
    #[error(transparent)]
    Inner(E),
}

impl<E> BreakerError<E> {
    /// The operation's own error, if that is what this is.
    pub fn into_inner(self) -> Option<E> {
        match self {
            BreakerError::Inner(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the breaker refused to call.
    pub fn is_open(&self) -> bool {
        matches!(self, BreakerError::Open { .. })
    }
}
