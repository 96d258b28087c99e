//! What this instance knows of the fleet, cached between refreshes, and the admission decision
//! made from it without asking Redis. Plain data: the Redis side fills it in.

use std::time::{Duration, Instant};

use super::super::fleet::Gate;
use super::super::state::BreakerState;

/// The fleet's open record, as last read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenView {
    pub(crate) generation: u64,
    /// How long it still had to run, by Redis's clock, when read.
    pub(crate) remaining: Duration,
    /// When it was read, on this host's monotonic clock (only to age `remaining`; whether the
    /// window elapsed is decided again by Redis's clock when a trial is claimed).
    pub(crate) read_at: Instant,
}

/// The cached view.
#[derive(Clone, Debug, Default)]
pub(crate) struct View {
    pub(crate) open: Option<OpenView>,
    /// Another instance holds every trial slot until then: fail fast without asking.
    pub(crate) busy_until: Option<Instant>,
    /// The fleet's consecutive failures, as last read.
    pub(crate) failures: u64,
    /// The operator's hold last applied here.
    pub(crate) hold: Option<BreakerState>,
}

impl View {
    /// The fleet's say for a breaker in `state` that mirrors open generation `fleet_open` with
    /// `trials` in flight of `max_trials`. `None`: the local machine decides.
    pub(crate) fn gate(
        &self,
        state: BreakerState,
        fleet_open: Option<u64>,
        trials: usize,
        max_trials: usize,
        now: Instant,
    ) -> Option<Gate> {
        let generation = fleet_open?;
        let open = self.open.filter(|open| open.generation == generation)?;
        match state {
            BreakerState::Open => {}
            // A free slot may claim another lease; a full half-open state refuses locally.
            BreakerState::HalfOpen if trials < max_trials => {}
            _ => return None,
        }
        if let Some(busy) = self.busy_until.filter(|&busy| busy > now) {
            return Some(Gate::Refuse(busy - now));
        }
        let remaining = open
            .remaining
            .saturating_sub(now.saturating_duration_since(open.read_at));
        if !remaining.is_zero() {
            return Some(Gate::Refuse(remaining));
        }
        Some(Gate::Claim(generation))
    }

    /// The fleet is open at `generation` with `remaining_ms` left (negative: elapsed).
    pub(crate) fn opened(&mut self, generation: u64, remaining_ms: i64, now: Instant) {
        if self.open.is_some_and(|open| open.generation != generation) {
            self.busy_until = None;
        }
        self.open = Some(OpenView {
            generation,
            remaining: Duration::from_millis(u64::try_from(remaining_ms).unwrap_or(0)),
            read_at: now,
        });
    }

    /// The fleet is not open.
    pub(crate) fn closed(&mut self) {
        self.open = None;
        self.busy_until = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_fleet_decides_only_for_the_generation_the_machine_mirrors() {
        let now = Instant::now();
        let mut view = View::default();
        view.opened(7, 300, now);
        let open = BreakerState::Open;
        assert_eq!(view.gate(open, None, 0, 1, now), None, "a local opening");
        assert_eq!(view.gate(open, Some(6), 0, 1, now), None, "an older one");
        assert_eq!(
            view.gate(open, Some(7), 0, 1, now),
            Some(Gate::Refuse(300 * MS))
        );
        assert_eq!(
            view.gate(open, Some(7), 0, 1, now + 100 * MS),
            Some(Gate::Refuse(200 * MS))
        );
        assert_eq!(
            view.gate(open, Some(7), 0, 1, now + 300 * MS),
            Some(Gate::Claim(7))
        );
        assert_eq!(
            view.gate(BreakerState::HalfOpen, Some(7), 1, 1, now + 300 * MS),
            None,
            "a full half-open state refuses by itself"
        );
    }

    #[test]
    fn a_lost_claim_is_remembered_until_the_holders_lease_ends() {
        let now = Instant::now();
        let mut view = View::default();
        view.opened(3, -5, now);
        view.busy_until = Some(now + 40 * MS);
        let open = BreakerState::Open;
        assert_eq!(
            view.gate(open, Some(3), 0, 1, now),
            Some(Gate::Refuse(40 * MS))
        );
        assert_eq!(
            view.gate(open, Some(3), 0, 1, now + 40 * MS),
            Some(Gate::Claim(3))
        );
        view.opened(4, 100, now);
        assert_eq!(
            view.busy_until, None,
            "a new generation forgets the old lease"
        );
    }
}
