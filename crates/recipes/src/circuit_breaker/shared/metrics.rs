//! A shared store's metrics (feature `metrics`), labelled with its breaker's name as the
//! breaker's own are: `green_tea.breaker.store.errors` (`kind`, one of the link's
//! `ERROR_KINDS`) and `green_tea.breaker.store.degraded` (1 while the breaker works on local
//! state alone).

use green_tea_core::metric::{BREAKER_STORE_DEGRADED, BREAKER_STORE_ERRORS};
use metrics::{Counter, Gauge, SharedString, counter, gauge};

use super::link::ERROR_KINDS;

/// A shared store's metric handles (the store of the breaker they are labelled with).
pub(crate) struct StoreMetrics {
    /// One series per kind, in `ERROR_KINDS`' order.
    errors: Vec<Counter>,
    degraded: Gauge,
}

impl StoreMetrics {
    pub(crate) fn new(name: &str) -> Self {
        let breaker = SharedString::from(name.to_owned());
        let metrics = StoreMetrics {
            errors: ERROR_KINDS
                .iter()
                .map(|kind| {
                    counter!(BREAKER_STORE_ERRORS, "breaker" => breaker.clone(), "kind" => *kind)
                })
                .collect(),
            degraded: gauge!(BREAKER_STORE_DEGRADED, "breaker" => breaker),
        };
        metrics.degraded(false);
        metrics
    }

    /// A command that failed, or did not answer in time, or met a script its node had not got:
    /// its kind by its place in `ERROR_KINDS`.
    pub(crate) fn error(&self, kind: usize) {
        if let Some(errors) = self.errors.get(kind) {
            errors.increment(1);
        }
    }

    /// Whether the breaker works on local state alone.
    pub(crate) fn degraded(&self, degraded: bool) {
        self.degraded.set(if degraded { 1.0 } else { 0.0 });
    }
}
