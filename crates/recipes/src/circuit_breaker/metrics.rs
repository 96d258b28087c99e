//! The breaker's metrics (feature `metrics`), through the `metrics` facade and named as
//! resilience4j names its: `green_tea.breaker.calls` (`outcome` = success, failure, ignored,
//! not_permitted), `green_tea.breaker.state` (`state`, 1 for the current state, 0 for the others),
//! `green_tea.breaker.transitions` (`from`, `to`). Every series is labelled with the breaker's
//! name. A shared store's own series are its (`shared/metrics.rs`).
//!
//! The handles are registered when the breaker is made (install the recorder before), so a
//! call bumps a handle and allocates nothing. A transition, rarer, registers its own.

use green_tea_core::metric::{BREAKER_CALLS, BREAKER_STATE, BREAKER_TRANSITIONS};
use metrics::{Counter, Gauge, SharedString, counter, gauge};

use super::call::Outcome;
use super::state::BreakerState;

/// Every state, in the order of the state gauges.
const STATES: [BreakerState; 5] = [
    BreakerState::Closed,
    BreakerState::Open,
    BreakerState::HalfOpen,
    BreakerState::ForcedOpen,
    BreakerState::ForcedClosed,
];

/// A state as a label value, as resilience4j writes it (`half_open`).
fn label(state: BreakerState) -> &'static str {
    match state {
        BreakerState::Closed => "closed",
        BreakerState::Open => "open",
        BreakerState::HalfOpen => "half_open",
        BreakerState::ForcedOpen => "forced_open",
        BreakerState::ForcedClosed => "forced_closed",
    }
}

/// One breaker's metric handles.
pub(crate) struct BreakerMetrics {
    breaker: SharedString,
    successes: Counter,
    failures: Counter,
    ignored: Counter,
    not_permitted: Counter,
    states: [Gauge; 5],
}

impl BreakerMetrics {
    /// The handles of the breaker named `name`, which starts closed.
    pub(crate) fn new(name: &str) -> Self {
        let breaker = SharedString::from(name.to_owned());
        let calls = |outcome: &'static str| counter!(BREAKER_CALLS, "breaker" => breaker.clone(), "outcome" => outcome);
        let state = |state: BreakerState| gauge!(BREAKER_STATE, "breaker" => breaker.clone(), "state" => label(state));
        let metrics = BreakerMetrics {
            successes: calls("success"),
            failures: calls("failure"),
            ignored: calls("ignored"),
            not_permitted: calls("not_permitted"),
            states: STATES.map(state),
            breaker,
        };
        metrics.set_state(BreakerState::Closed);
        metrics
    }

    /// A call's outcome.
    #[inline]
    pub(crate) fn outcome(&self, outcome: Outcome) {
        match outcome {
            Outcome::Success => self.successes.increment(1),
            Outcome::Failure => self.failures.increment(1),
            Outcome::Ignored => self.ignored.increment(1),
        }
    }

    /// A call refused (open, or every trial slot taken).
    #[inline]
    pub(crate) fn not_permitted(&self) {
        self.not_permitted.increment(1);
    }

    /// A transition: counted, and the state gauges moved.
    pub(crate) fn transition(&self, from: BreakerState, to: BreakerState) {
        counter!(
            BREAKER_TRANSITIONS,
            "breaker" => self.breaker.clone(),
            "from" => label(from),
            "to" => label(to),
        )
        .increment(1);
        self.set_state(to);
    }

    fn set_state(&self, now: BreakerState) {
        for (state, gauge) in STATES.iter().zip(&self.states) {
            gauge.set(if *state == now { 1.0 } else { 0.0 });
        }
    }
}

impl std::fmt::Debug for BreakerMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BreakerMetrics")
            .field("breaker", &self.breaker)
            .finish_non_exhaustive()
    }
}
