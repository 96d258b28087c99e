//! What the publisher has yet to send: bounded by construction. Failures coalesce into one
//! count (sent with one `INCRBY`, and the total so far, so a batch sent twice counts once), a
//! hold keeps only its latest value, and trial results are few (one per trial slot) and
//! capped; a slow Redis never grows anything without bound.

use std::collections::VecDeque;

use super::super::state::BreakerState;

/// A trial's result, for the release script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Release {
    pub(crate) generation: u64,
    pub(crate) token: String,
    pub(crate) slot: u32,
    /// `success`, `failure` or `release` (ignored, dropped, or unused: only free the lease).
    pub(crate) outcome: &'static str,
}

/// The queue.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub(crate) failures: u64,
    /// Every failure queued since the breaker was made: sent with `failures`, so that Redis
    /// counts a batch it applied but whose answer was lost only once when it comes again.
    pub(crate) total: u64,
    pub(crate) hold: Option<Option<BreakerState>>,
    pub(crate) releases: VecDeque<Release>,
    /// Trial results dropped because the queue was full (their leases lapse on their own).
    pub(crate) dropped: u64,
}

impl Pending {
    /// Queues a trial's result, dropping the oldest past `cap`.
    pub(crate) fn release(&mut self, release: Release, cap: usize) {
        if self.releases.len() >= cap.max(1) {
            self.releases.pop_front();
            self.dropped += 1;
        }
        self.releases.push_back(release);
    }

    /// A failure.
    pub(crate) fn failure(&mut self) {
        self.failures += 1;
        self.total += 1;
    }

    /// Everything queued, leaving the queue empty (but for the total).
    pub(crate) fn take(&mut self) -> Pending {
        let total = self.total;
        let taken = std::mem::take(self);
        self.total = total;
        taken
    }

    /// Puts back what could not be sent, behind anything queued since (which is newer). The
    /// failures merge: sent again with the newer total, Redis counts those it has not.
    pub(crate) fn restore(&mut self, mut unsent: Pending, cap: usize) {
        self.failures = self.failures.saturating_add(unsent.failures);
        if self.hold.is_none() {
            self.hold = unsent.hold;
        }
        while let Some(newer) = self.releases.pop_front() {
            unsent.releases.push_back(newer);
        }
        for release in unsent.releases {
            self.release(release, cap);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.failures == 0 && self.hold.is_none() && self.releases.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(slot: u32) -> Release {
        Release {
            generation: 1,
            token: String::new(),
            slot,
            outcome: "release",
        }
    }

    #[test]
    fn the_queue_stays_bounded_and_keeps_the_newest() {
        let mut pending = Pending::default();
        for slot in 0..10 {
            pending.release(release(slot), 3);
        }
        assert_eq!(pending.releases.len(), 3);
        assert_eq!(pending.releases[0].slot, 7);
        assert_eq!(pending.dropped, 7);

        pending.failure();
        let unsent = pending.take();
        assert!(pending.is_empty());
        assert_eq!((unsent.failures, unsent.total), (1, 1));
        pending.failure();
        pending.failure();
        pending.release(release(10), 3);
        pending.restore(unsent, 3);
        assert_eq!(pending.failures, 3, "the unsent one and the two since");
        assert_eq!(pending.total, 3);
        let slots: Vec<u32> = pending.releases.iter().map(|r| r.slot).collect();
        assert_eq!(slots, [8, 9, 10]);
    }
}
