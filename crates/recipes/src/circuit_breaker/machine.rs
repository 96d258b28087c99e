//! The breaker's state machine: plain data under one lock, no I/O, no time of its own. It
//! publishes its state to the [`FastPath`] with every change, and while it is closed the
//! failure count lives there.

use std::sync::Arc;
use std::time::Duration;

use super::call::{Outcome, Ticket};
use super::config::{Config, OpenDuration};
use super::fast_path::FastPath;
use super::state::{BreakerState, Transition};
use super::word::{Word, next_generation};

/// The state machine. Every state change bumps `generation` when it must invalidate the calls
/// in flight, so a late result from before the change is recognised and ignored.
pub(crate) struct Machine {
    state: BreakerState,
    /// Consecutive failures, except while closed: then the word holds them and this stays 0.
    failures: u32,
    /// Counted modulo 2³⁰, as the word holds it.
    generation: u32,
    opened_at: Duration,
    open_for: Duration,
    /// Openings since it last closed, for the exponential open duration (so 0 while closed).
    openings: u32,
    /// Half-open trials in flight: (id, lease deadline).
    trials: Vec<(u64, Duration)>,
    next_trial: u64,
    rng: fastrand::Rng,
    /// With a shared store: the fleet's open generation this open (or half-open) state mirrors,
    /// so the fleet, not this instance's clock, decides when to trial. `None`: local state.
    #[cfg(feature = "redis")]
    fleet_open: Option<u64>,
}

impl Machine {
    pub(crate) fn new(config: &Config) -> Self {
        Machine {
            state: BreakerState::Closed,
            failures: 0,
            generation: 0,
            opened_at: Duration::ZERO,
            open_for: Duration::ZERO,
            openings: 0,
            trials: Vec::new(),
            next_trial: 0,
            rng: config
                .jitter_seed
                .map(fastrand::Rng::with_seed)
                .unwrap_or_default(),
            #[cfg(feature = "redis")]
            fleet_open: None,
        }
    }

    pub(crate) fn state(&self) -> BreakerState {
        self.state
    }

    /// The word that publishes this state to the fast path.
    pub(crate) fn word(&self) -> Word {
        match self.state {
            BreakerState::Closed => Word::closed(self.generation, self.failures),
            BreakerState::ForcedClosed => Word::forced_closed(self.generation),
            _ => Word::locked(self.generation),
        }
    }

    /// May a call go through now? `Err(retry_after)` if not.
    /// The clock is read only when the answer depends on it (open or half-open), so a closed
    /// breaker costs no clock read per call. (A closed breaker's calls are usually admitted by
    /// the fast path; they come here only if the state changed while they waited for the lock.)
    pub(crate) fn admit(
        &mut self,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) -> Result<Ticket, Duration> {
        let counters = &fast.counters;
        if matches!(
            self.state,
            BreakerState::Closed | BreakerState::ForcedClosed
        ) {
            counters.admitted.bump();
            return Ok(Ticket {
                generation: self.generation,
                trial: None,
            });
        }
        let now = config.clock.now();
        if self.state == BreakerState::Open {
            let elapsed = now.saturating_sub(self.opened_at);
            if elapsed < self.open_for {
                counters.reject();
                return Err(self.open_for - elapsed);
            }
            self.set(BreakerState::HalfOpen, now, config, fast, changes);
        }
        if self.state == BreakerState::HalfOpen {
            // A trial whose lease ran out is hung: it failed, and the upstream is still down.
            if self.trials.iter().any(|&(_, deadline)| deadline <= now) {
                self.open(now, config, fast, changes);
                counters.reject();
                return Err(self.open_for);
            }
            if self.trials.len() >= config.half_open_trials as usize {
                counters.reject();
                let next_free = self.trials.iter().map(|&(_, d)| d).min().unwrap_or(now);
                return Err(next_free.saturating_sub(now));
            }
            let id = self.next_trial;
            self.next_trial += 1;
            // Saturating: `call_timeout(Duration::MAX)` is a fair way to say "no timeout".
            self.trials.push((id, now.saturating_add(lease(config))));
            counters.admitted.bump();
            return Ok(Ticket {
                generation: self.generation,
                trial: Some(id),
            });
        }
        if self.state == BreakerState::ForcedOpen {
            counters.reject();
            return Err(base_open_duration(config));
        }
        counters.admitted.bump();
        Ok(Ticket {
            generation: self.generation,
            trial: None,
        })
    }

    /// Settles a call with its outcome: a trial's, or one the fast path could not settle.
    pub(crate) fn record(
        &mut self,
        ticket: Ticket,
        outcome: Outcome,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) {
        if ticket.generation != self.generation {
            fast.counters.stale.bump();
            return;
        }
        if let Some(id) = ticket.trial {
            self.trials.retain(|&(t, _)| t != id);
        }
        fast.counters.outcome(outcome);
        match (outcome, self.state) {
            (Outcome::Ignored, _) | (_, BreakerState::ForcedClosed) => {}
            // Closed: the count is in the word, and callers change it without the lock.
            (Outcome::Success, BreakerState::Closed) => {
                fast.update(|word| word.with_failures(0));
            }
            (Outcome::Failure, BreakerState::Closed) => {
                // Count it in the word; if that reaches the threshold, seal the word instead
                // (in the same exchange) so no caller counts past the failure that opens it.
                let (threshold, generation) = (config.threshold, self.generation);
                let seen = fast.update(|word| {
                    debug_assert!(word.is_fast() && word.generation() == generation);
                    let failures = word.failures().saturating_add(1);
                    if failures < threshold {
                        word.with_failures(failures)
                    } else {
                        Word::locked(generation)
                    }
                });
                let failures = seen.failures().saturating_add(1);
                if failures >= threshold {
                    self.failures = failures;
                    self.open(config.clock.now(), config, fast, changes);
                }
            }
            (Outcome::Success, _) => {
                self.close(config, fast, changes);
            }
            (Outcome::Failure, _) => {
                self.failures = self.failures.saturating_add(1);
                // A failed trial re-opens at once: it just proved the upstream is still down.
                if self.state == BreakerState::HalfOpen || self.failures >= config.threshold {
                    self.open(config.clock.now(), config, fast, changes);
                }
            }
        }
    }

    /// A call that was admitted but dropped before it finished: free its trial slot.
    pub(crate) fn abandon(&mut self, ticket: Ticket) {
        if ticket.generation == self.generation
            && let Some(id) = ticket.trial
        {
            self.trials.retain(|&(t, _)| t != id);
        }
    }

    /// An operator's hold, or its release (`None` returns to closed with nothing counted).
    pub(crate) fn force(
        &mut self,
        hold: Option<BreakerState>,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) {
        self.failures = 0;
        self.openings = 0;
        let now = config.clock.now();
        self.set(
            hold.unwrap_or(BreakerState::Closed),
            now,
            config,
            fast,
            changes,
        );
        // `set` published a change of state; a breaker that stays closed still loses its count.
        let word = self.word();
        fast.update(|_| word);
    }

    /// Closes, forgetting the failures and openings that led here: a call succeeded, or the
    /// fleet's opening this state mirrored ended.
    fn close(&mut self, config: &Config, fast: &FastPath, changes: &mut Vec<Transition>) {
        self.failures = 0;
        self.openings = 0;
        self.set(
            BreakerState::Closed,
            config.clock.now(),
            config,
            fast,
            changes,
        );
    }

    fn open(
        &mut self,
        now: Duration,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) {
        self.open_for = self.next_open_duration(config);
        self.openings = self.openings.saturating_add(1);
        self.opened_at = now;
        // A local opening: the fleet's answer (if it shares one) is adopted when it comes.
        #[cfg(feature = "redis")]
        {
            self.fleet_open = None;
        }
        fast.counters.opened.bump();
        self.set(BreakerState::Open, now, config, fast, changes);
    }

    fn next_open_duration(&mut self, config: &Config) -> Duration {
        match config.open_duration {
            OpenDuration::Fixed(d) => d,
            OpenDuration::Exponential { base, cap } => {
                let grown = base.saturating_mul(1_u32 << self.openings.min(31));
                let upper = grown.min(cap).max(base);
                let spread = u64::try_from((upper - base).as_nanos()).unwrap_or(u64::MAX);
                base + Duration::from_nanos(self.rng.u64(0..=spread))
            }
        }
    }

    /// Changes the state and publishes it: every change of state goes through here.
    fn set(
        &mut self,
        to: BreakerState,
        now: Duration,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) {
        let from = self.state;
        if from == to {
            return;
        }
        self.state = to;
        #[cfg(feature = "redis")]
        if !matches!(to, BreakerState::Open | BreakerState::HalfOpen) {
            self.fleet_open = None;
        }
        // Leaving open for half-open keeps the generation: the trials belong to it. Every
        // other change invalidates the calls in flight.
        if !(from == BreakerState::Open && to == BreakerState::HalfOpen) {
            self.generation = next_generation(self.generation);
            self.trials.clear();
        }
        // Leaving closed, the word was sealed (opening) or its count is dropped (an operator's
        // hold); `update` is still an exchange, so a caller's concurrent update fails and the
        // caller decides again on the new word.
        let word = self.word();
        fast.update(|_| word);
        changes.push(Transition {
            breaker: Arc::clone(&config.name),
            from,
            to,
            at: now,
            failures: self.failures,
        });
    }
}

/// With a shared store (`shared/`): the machine mirrors the fleet's verdict.
#[cfg(feature = "redis")]
impl Machine {
    /// The fleet's open generation this state mirrors, if any.
    pub(crate) fn fleet_open(&self) -> Option<u64> {
        self.fleet_open
    }

    /// Trials in flight.
    pub(crate) fn trials_in_flight(&self) -> usize {
        self.trials.len()
    }

    /// The fleet is open at `generation` for `remaining` more (by Redis's clock): open too,
    /// unless an operator holds this one. `remaining` is the local window only if the fleet's
    /// record is later lost; while it is there, the fleet decides when to trial.
    pub(crate) fn adopt_fleet_open(
        &mut self,
        generation: u64,
        remaining: Duration,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) {
        if matches!(
            self.state,
            BreakerState::ForcedOpen | BreakerState::ForcedClosed
        ) || self.fleet_open == Some(generation)
        {
            return;
        }
        let now = config.clock.now();
        if self.state != BreakerState::Open {
            self.openings = self.openings.saturating_add(1);
            fast.counters.opened.bump();
            self.set(BreakerState::Open, now, config, fast, changes);
        }
        self.opened_at = now;
        self.open_for = remaining;
        self.fleet_open = Some(generation);
    }

    /// The fleet closed every generation up to `generation` (a trial succeeded, or an operator
    /// released it): close, if this state mirrors one of them. A local opening (this instance's
    /// own count, below the fleet's quorum) stays open.
    pub(crate) fn fleet_closed(
        &mut self,
        generation: u64,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) {
        if self.fleet_open.is_some_and(|open| open <= generation) {
            self.close(config, fast, changes);
        }
    }

    /// The fleet's record is gone without a verdict: from now on the local window decides.
    pub(crate) fn forget_fleet(&mut self) {
        self.fleet_open = None;
    }

    /// This instance won a trial lease of the fleet's `generation`: the trial, unless the state
    /// moved on while the claim was under way.
    pub(crate) fn begin_fleet_trial(
        &mut self,
        generation: u64,
        lease: Duration,
        config: &Config,
        fast: &FastPath,
        changes: &mut Vec<Transition>,
    ) -> Option<Ticket> {
        if self.fleet_open != Some(generation) {
            return None;
        }
        let now = config.clock.now();
        if self.state == BreakerState::Open {
            self.set(BreakerState::HalfOpen, now, config, fast, changes);
        }
        if self.state != BreakerState::HalfOpen
            || self.trials.len() >= config.half_open_trials as usize
        {
            return None;
        }
        let id = self.next_trial;
        self.next_trial += 1;
        self.trials.push((id, now.saturating_add(lease)));
        fast.counters.admitted.bump();
        Some(Ticket {
            generation: self.generation,
            trial: Some(id),
        })
    }
}

fn lease(config: &Config) -> Duration {
    config
        .call_timeout
        .unwrap_or_else(|| base_open_duration(config))
}

fn base_open_duration(config: &Config) -> Duration {
    match config.open_duration {
        OpenDuration::Fixed(d) => d,
        OpenDuration::Exponential { base, .. } => base,
    }
}
