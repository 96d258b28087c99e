//! A shutdown's budget: one length of time for a whole close, shared by its phases in order
//! (the drain, the workers' stop, the modules' hooks, the disposes). Each wait is its own cap
//! or what is left of the budget, whichever is shorter; what a phase leaves unused is the next
//! one's. Not a public API: `App::close` and `Container::close` read it.

use std::time::Duration;

use tokio::time::Instant;

use crate::error::FailureCause;

/// What is left of a shutdown's budget, if it has one.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// When it runs out, and how long it was.
    until: Option<(Instant, Duration)>,
}

impl Budget {
    /// No budget: every wait is its own cap (a container closed on its own).
    pub fn none() -> Self {
        Budget { until: None }
    }

    /// A budget of `total`, from now.
    pub fn of(total: Duration) -> Self {
        Budget {
            until: Some((Instant::now() + total, total)),
        }
    }

    /// How long a wait capped at `cap` may last now, and what it is if it runs out: its own
    /// cap's timeout, or the budget's end when that comes first (the close then says which
    /// phase ran out of it).
    pub fn limit(&self, cap: Duration) -> (Duration, FailureCause) {
        match self.until {
            Some((until, total)) => {
                let left = until.saturating_duration_since(Instant::now());
                match left < cap {
                    true => (left, FailureCause::OutOfBudget(total)),
                    false => (cap, FailureCause::TimedOut(cap)),
                }
            }
            None => (cap, FailureCause::TimedOut(cap)),
        }
    }
}
