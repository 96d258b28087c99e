//! What the breaker has seen: one atomic per counter, bumped without the lock.

use std::sync::atomic::Ordering;

use super::call::Outcome;
use super::sync::AtomicU64;

/// A snapshot of what the breaker has seen since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Calls admitted (the operation ran).
    pub admitted: u64,
    /// Calls refused while open or with every trial slot taken.
    pub rejected: u64,
    /// Outcomes classified as success.
    pub successes: u64,
    /// Outcomes classified as failure (timeouts included).
    pub failures: u64,
    /// Outcomes classified as ignored.
    pub ignored: u64,
    /// Calls cut off by the call timeout.
    pub timeouts: u64,
    /// Outcomes that arrived after the breaker had moved on (an earlier generation); ignored.
    pub stale: u64,
    /// Times it opened.
    pub opened: u64,
    /// With a shared store: it works on local state alone for now (Redis slow or unreachable).
    /// Always `false` without one.
    pub degraded: bool,
    /// With a shared store: trial lease claims that did not answer within the claim timeout
    /// (each failed its call fast).
    pub claim_timeouts: u64,
}

/// One counter. `Relaxed` is enough: a count orders nothing else, and a read-modify-write
/// never loses an increment whatever its ordering.
#[derive(Debug, Default)]
pub(crate) struct Count(AtomicU64);

impl Count {
    #[inline]
    pub(crate) fn bump(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The live counters behind [`Counters`].
#[derive(Debug, Default)]
pub(crate) struct AtomicCounters {
    pub(crate) admitted: Count,
    pub(crate) rejected: Count,
    pub(crate) successes: Count,
    pub(crate) failures: Count,
    pub(crate) ignored: Count,
    pub(crate) timeouts: Count,
    pub(crate) stale: Count,
    pub(crate) opened: Count,
    /// The same outcomes as metrics (feature `metrics`).
    #[cfg(feature = "metrics")]
    pub(crate) exported: Option<super::metrics::BreakerMetrics>,
}

impl AtomicCounters {
    /// The counters of the breaker named `name` (exported as metrics with the feature).
    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    pub(crate) fn of(name: &str) -> Self {
        AtomicCounters {
            #[cfg(feature = "metrics")]
            exported: Some(super::metrics::BreakerMetrics::new(name)),
            ..AtomicCounters::default()
        }
    }

    /// Counts the outcome of a call that was not stale.
    #[inline]
    pub(crate) fn outcome(&self, outcome: Outcome) {
        match outcome {
            Outcome::Success => self.successes.bump(),
            Outcome::Failure => self.failures.bump(),
            Outcome::Ignored => self.ignored.bump(),
        }
        #[cfg(feature = "metrics")]
        if let Some(exported) = &self.exported {
            exported.outcome(outcome);
        }
    }

    /// Counts a call refused (open, or every trial slot taken).
    #[inline]
    pub(crate) fn reject(&self) {
        self.rejected.bump();
        #[cfg(feature = "metrics")]
        if let Some(exported) = &self.exported {
            exported.not_permitted();
        }
    }

    /// Reads each counter once: each is exact, the set may mix moments.
    pub(crate) fn snapshot(&self) -> Counters {
        Counters {
            admitted: self.admitted.get(),
            rejected: self.rejected.get(),
            successes: self.successes.get(),
            failures: self.failures.get(),
            ignored: self.ignored.get(),
            timeouts: self.timeouts.get(),
            stale: self.stale.get(),
            opened: self.opened.get(),
            degraded: false,
            claim_timeouts: 0,
        }
    }
}
