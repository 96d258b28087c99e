//! The breaker's state machine: plain data under one lock, no I/O, no time of its own.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::config::{Config, OpenDuration, Outcome};

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
}

/// The right to make one call, issued by `admit` and settled by `record` or `abandon`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticket {
    generation: u64,
    trial: Option<u64>,
}

/// The state machine. Every state change bumps `generation` when it must invalidate the calls
/// in flight, so a late result from before the change is recognised and ignored.
pub(crate) struct Machine {
    state: BreakerState,
    failures: u32,
    generation: u64,
    opened_at: Duration,
    open_for: Duration,
    /// Openings since it last closed, for the exponential open duration.
    openings: u32,
    /// Half-open trials in flight: (id, lease deadline).
    trials: Vec<(u64, Duration)>,
    next_trial: u64,
    counters: Counters,
    rng: fastrand::Rng,
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
            counters: Counters::default(),
            rng: config
                .jitter_seed
                .map(fastrand::Rng::with_seed)
                .unwrap_or_default(),
        }
    }

    pub(crate) fn state(&self) -> BreakerState {
        self.state
    }

    pub(crate) fn counters(&self) -> Counters {
        self.counters
    }

    /// May a call go through now? `Err(retry_after)` if not.
    /// The clock is read only when the answer depends on it (open or half-open), so a closed
    /// breaker costs no clock read per call.
    pub(crate) fn admit(
        &mut self,
        config: &Config,
        changes: &mut Vec<Transition>,
    ) -> Result<Ticket, Duration> {
        if matches!(
            self.state,
            BreakerState::Closed | BreakerState::ForcedClosed
        ) {
            self.counters.admitted += 1;
            return Ok(Ticket {
                generation: self.generation,
                trial: None,
            });
        }
        let now = config.clock.now();
        if self.state == BreakerState::Open {
            let elapsed = now.saturating_sub(self.opened_at);
            if elapsed < self.open_for {
                self.counters.rejected += 1;
                return Err(self.open_for - elapsed);
            }
            self.set(BreakerState::HalfOpen, now, config, changes);
        }
        if self.state == BreakerState::HalfOpen {
            // A trial whose lease ran out is hung: it failed, and the upstream is still down.
            if self.trials.iter().any(|&(_, deadline)| deadline <= now) {
                self.open(now, config, changes);
                self.counters.rejected += 1;
                return Err(self.open_for);
            }
            if self.trials.len() >= config.half_open_trials as usize {
                self.counters.rejected += 1;
                let next_free = self.trials.iter().map(|&(_, d)| d).min().unwrap_or(now);
                return Err(next_free.saturating_sub(now));
            }
            let id = self.next_trial;
            self.next_trial += 1;
            // Saturating: `call_timeout(Duration::MAX)` is a fair way to say "no timeout".
            self.trials.push((id, now.saturating_add(lease(config))));
            self.counters.admitted += 1;
            return Ok(Ticket {
                generation: self.generation,
                trial: Some(id),
            });
        }
        if self.state == BreakerState::ForcedOpen {
            self.counters.rejected += 1;
            return Err(base_open_duration(config));
        }
        self.counters.admitted += 1;
        Ok(Ticket {
            generation: self.generation,
            trial: None,
        })
    }

    /// Settles a call with its outcome.
    pub(crate) fn record(
        &mut self,
        ticket: Ticket,
        outcome: Outcome,
        config: &Config,
        changes: &mut Vec<Transition>,
    ) {
        if ticket.generation != self.generation {
            self.counters.stale += 1;
            return;
        }
        if let Some(id) = ticket.trial {
            self.trials.retain(|&(t, _)| t != id);
        }
        match outcome {
            Outcome::Ignored => self.counters.ignored += 1,
            Outcome::Success => {
                self.counters.successes += 1;
                if self.state == BreakerState::ForcedClosed {
                    return;
                }
                self.failures = 0;
                self.openings = 0;
                if self.state != BreakerState::Closed {
                    self.set(BreakerState::Closed, config.clock.now(), config, changes);
                }
            }
            Outcome::Failure => {
                self.counters.failures += 1;
                if self.state == BreakerState::ForcedClosed {
                    return;
                }
                self.failures = self.failures.saturating_add(1);
                // A failed trial re-opens at once: it just proved the upstream is still down.
                if self.state == BreakerState::HalfOpen || self.failures >= config.threshold {
                    self.open(config.clock.now(), config, changes);
                }
            }
        }
    }

    /// A call that was admitted but dropped before it finished: free its trial slot.
    pub(crate) fn abandon(&mut self, ticket: Ticket) {
        if ticket.generation == self.generation {
            if let Some(id) = ticket.trial {
                self.trials.retain(|&(t, _)| t != id);
            }
        }
    }

    /// An operator's hold, or its release (`None` returns to closed with nothing counted).
    pub(crate) fn force(
        &mut self,
        hold: Option<BreakerState>,
        config: &Config,
        changes: &mut Vec<Transition>,
    ) {
        self.failures = 0;
        self.openings = 0;
        let now = config.clock.now();
        self.set(hold.unwrap_or(BreakerState::Closed), now, config, changes);
    }

    pub(crate) fn note_timeout(&mut self) {
        self.counters.timeouts += 1;
    }

    fn open(&mut self, now: Duration, config: &Config, changes: &mut Vec<Transition>) {
        self.open_for = self.next_open_duration(config);
        self.openings = self.openings.saturating_add(1);
        self.opened_at = now;
        self.counters.opened += 1;
        self.set(BreakerState::Open, now, config, changes);
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

    fn set(
        &mut self,
        to: BreakerState,
        now: Duration,
        config: &Config,
        changes: &mut Vec<Transition>,
    ) {
        let from = self.state;
        if from == to {
            return;
        }
        self.state = to;
        // Leaving open for half-open keeps the generation: the trials belong to it. Every
        // other change invalidates the calls in flight.
        if !(from == BreakerState::Open && to == BreakerState::HalfOpen) {
            self.generation += 1;
            self.trials.clear();
        }
        changes.push(Transition {
            breaker: Arc::clone(&config.name),
            from,
            to,
            at: now,
            failures: self.failures,
        });
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
