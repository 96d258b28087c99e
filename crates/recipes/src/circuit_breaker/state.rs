//! Where a breaker is, and one change of it: the states and the transitions its callback and
//! its `tracing` events are told of.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Where the breaker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BreakerState {
    /// Calls go through; failures are counted.
    Closed,
    /// Calls fail fast without calling.
    Open,
    /// The open window elapsed: a limited number of trial calls go through.
    HalfOpen,
    /// Held open by an operator until [`release`](super::CircuitBreaker::release).
    ForcedOpen,
    /// Held closed by an operator until `release`: every call goes through, nothing opens it.
    ForcedClosed,
}

impl fmt::Display for BreakerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half-open",
            BreakerState::ForcedOpen => "forced-open",
            BreakerState::ForcedClosed => "forced-closed",
        })
    }
}

/// One state change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The breaker's name.
    pub breaker: Arc<str>,
    /// The state before.
    pub from: BreakerState,
    /// The state after.
    pub to: BreakerState,
    /// When, on the breaker's clock.
    pub at: Duration,
    /// Consecutive failures counted at that moment.
    pub failures: u32,
}
