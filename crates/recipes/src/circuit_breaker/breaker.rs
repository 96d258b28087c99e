//! The breaker itself: a call's way through it (admitted by the fast path or the machine, run,
//! settled, or its trial slot freed if it is dropped), operators' holds, and the transitions
//! announced once the lock is released. With a shared store, its cold paths also consult the
//! fleet, and the fleet's verdicts are applied here.

use std::future::Future;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use super::call::{Outcome, Ticket};
use super::config::Config;
use super::counters::{AtomicCounters, Counters};
use super::error::BreakerError;
use super::fast_path::FastPath;
#[cfg(feature = "redis")]
use super::fleet::{Claim, Fleet, Gate};
use super::machine::Machine;
use super::state::{BreakerState, Transition};
use super::sync::{Mutex, MutexGuard};

/// A circuit breaker. Cheap to clone: clones share one state, so it lives on a provider and is
/// built once with the app.
#[derive(Clone)]
pub struct CircuitBreaker {
    pub(super) shared: Arc<Shared>,
}

/// A closed breaker's calls touch only `fast`: an atomic word that mirrors the machine's state
/// (and holds the failure count while closed) and atomic counters. Everything else (open,
/// half-open, trials, holds, transitions) is decided by the machine under its lock.
pub(super) struct Shared {
    pub(super) config: Config,
    pub(super) fast: FastPath,
    machine: Mutex<Machine>,
    /// A shared store (`shared/`), consulted on the cold paths only.
    #[cfg(feature = "redis")]
    pub(super) fleet: Option<Arc<dyn Fleet>>,
    /// How many times the lock was taken, so tests can tell the fast path from the machine.
    #[cfg(test)]
    locks: std::sync::atomic::AtomicU64,
}

impl CircuitBreaker {
    /// A breaker with `config`.
    pub fn new(config: Config) -> Self {
        CircuitBreaker::of(
            config,
            #[cfg(feature = "redis")]
            None,
        )
    }

    /// A breaker with `config`, its cold paths going through `fleet` if it has one.
    fn of(config: Config, #[cfg(feature = "redis")] fleet: Option<Arc<dyn Fleet>>) -> Self {
        let machine = Machine::new(&config);
        CircuitBreaker {
            shared: Arc::new(Shared {
                fast: FastPath::new(machine.word(), AtomicCounters::of(&config.name)),
                machine: Mutex::new(machine),
                config,
                #[cfg(feature = "redis")]
                fleet,
                #[cfg(test)]
                locks: Default::default(),
            }),
        }
    }

    /// Where it is now.
    pub fn state(&self) -> BreakerState {
        self.machine().state()
    }

    /// What it has seen so far.
    ///
    /// Read without the lock, one counter at a time: each counter is exact, but a snapshot
    /// taken while calls are running may mix moments (a call already counted in `admitted`
    /// whose outcome is not yet counted, say). Once the calls are done, it adds up.
    pub fn counters(&self) -> Counters {
        #[allow(unused_mut)] // a shared store adds its own figures
        let mut counters = self.shared.fast.counters.snapshot();
        #[cfg(feature = "redis")]
        if let Some(fleet) = &self.shared.fleet {
            fleet.fill(&mut counters);
        }
        counters
    }

    /// Its settings.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// Calls `operation` unless the breaker is open; any `Err` is a failure.
    pub async fn call<T, E, F, Fut>(&self, operation: F) -> Result<T, BreakerError<E>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        self.call_classified(operation, |result| match result {
            Ok(_) => Outcome::Success,
            Err(_) => Outcome::Failure,
        })
        .await
    }

    /// Calls `operation` unless the breaker is open, and lets `classify` say what its result
    /// means: a 404 can be [`Outcome::Ignored`] while a 503 is a [`Outcome::Failure`].
    pub async fn call_classified<T, E, F, Fut, C>(
        &self,
        operation: F,
        classify: C,
    ) -> Result<T, BreakerError<E>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
        C: FnOnce(&Result<T, E>) -> Outcome,
    {
        let ticket = match self.admit() {
            Ok(ticket) => ticket,
            Err(Refusal::Open(retry_after)) => return Err(BreakerError::Open { retry_after }),
            // Only with a shared store: the fleet's window elapsed, claim its trial lease.
            #[cfg(feature = "redis")]
            Err(Refusal::Claim(generation)) => self
                .claim_trial(generation)
                .await
                .map_err(|retry_after| BreakerError::Open { retry_after })?,
        };
        // If this future is dropped mid-call, the permit frees a trial slot on the way out.
        let mut permit = Permit {
            breaker: self,
            ticket: Some(ticket),
        };
        let result = match self.shared.config.call_timeout {
            None => operation().await,
            Some(limit) => match tokio::time::timeout(limit, operation()).await {
                Ok(result) => result,
                Err(_elapsed) => {
                    self.shared.fast.counters.timeouts.bump();
                    permit.settle(Outcome::Failure);
                    return Err(BreakerError::Timeout(limit));
                }
            },
        };
        permit.settle(classify(&result));
        result.map_err(BreakerError::Inner)
    }

    /// Holds it open: every call fails fast until [`release`](Self::release).
    pub fn force_open(&self) {
        self.force(Some(BreakerState::ForcedOpen));
    }

    /// Holds it closed: every call goes through and nothing opens it until `release`.
    pub fn force_closed(&self) {
        self.force(Some(BreakerState::ForcedClosed));
    }

    /// Ends an operator's hold (or resets it): closed, with no failures counted.
    pub fn release(&self) {
        self.force(None);
    }

    fn force(&self, hold: Option<BreakerState>) {
        self.force_here(hold);
        // With a shared store, a hold is the fleet's: published, and applied by every instance.
        #[cfg(feature = "redis")]
        if let Some(fleet) = &self.shared.fleet {
            fleet.hold(hold);
        }
    }

    /// Applies a hold to this instance only.
    fn force_here(&self, hold: Option<BreakerState>) {
        let Shared { config, fast, .. } = &*self.shared;
        let mut changes = Vec::new();
        self.machine().force(hold, config, fast, &mut changes);
        self.announce(changes);
    }

    /// A closed breaker admits without its lock; otherwise the machine decides.
    #[inline]
    fn admit(&self) -> Result<Ticket, Refusal> {
        match self.shared.fast.admit() {
            Some(ticket) => Ok(ticket),
            None => self.admit_locked(),
        }
    }

    // Out of line (and cold): the closed breaker's path is the one kept short.
    #[cold]
    fn admit_locked(&self) -> Result<Ticket, Refusal> {
        let Shared { config, fast, .. } = &*self.shared;
        let mut changes = Vec::new();
        let mut machine = self.machine();
        // With a shared store, the fleet decides while this instance mirrors its open verdict.
        #[cfg(feature = "redis")]
        if let Some(gate) = self.fleet_gate(&machine) {
            return match gate {
                Gate::Refuse(retry_after) => {
                    fast.counters.reject();
                    Err(Refusal::Open(retry_after))
                }
                Gate::Claim(generation) => Err(Refusal::Claim(generation)),
            };
        }
        let admitted = machine
            .admit(config, fast, &mut changes)
            .map_err(Refusal::Open);
        drop(machine);
        self.announce(changes);
        admitted
    }

    /// Settles a call: a closed breaker's without its lock, the rest by the machine.
    #[inline]
    fn settle(&self, ticket: Ticket, outcome: Outcome) {
        let Shared { config, fast, .. } = &*self.shared;
        if !fast.settle(ticket, outcome, config.threshold) {
            self.settle_locked(ticket, outcome);
        } else {
            // A shared store publishes failures (in the background); successes cost nothing.
            #[cfg(feature = "redis")]
            if outcome == Outcome::Failure {
                self.fleet_failure();
            }
        }
    }

    // Out of line (and cold): the closed breaker's path is the one kept short.
    #[cold]
    fn settle_locked(&self, ticket: Ticket, outcome: Outcome) {
        let Shared { config, fast, .. } = &*self.shared;
        let mut changes = Vec::new();
        self.machine()
            .record(ticket, outcome, config, fast, &mut changes);
        self.announce(changes);
        #[cfg(feature = "redis")]
        self.fleet_settled(ticket, Some(outcome));
    }

    fn machine(&self) -> MutexGuard<'_, Machine> {
        #[cfg(test)]
        self.shared
            .locks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // The machine is never left half-updated by a panic (nothing in it panics).
        self.shared
            .machine
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Emits transitions after the lock is released, so a callback may use the breaker.
    fn announce(&self, changes: Vec<Transition>) {
        for change in changes {
            #[cfg(feature = "metrics")]
            if let Some(exported) = &self.shared.fast.counters.exported {
                exported.transition(change.from, change.to);
            }
            if change.to == BreakerState::Open {
                tracing::warn!(breaker = %change.breaker, from = %change.from, to = %change.to, failures = change.failures, "circuit opened");
            } else {
                tracing::info!(breaker = %change.breaker, from = %change.from, to = %change.to, "circuit {}", change.to);
            }
            if let Some(callback) = &self.shared.config.on_transition {
                callback(&change);
            }
        }
    }
}

impl std::fmt::Debug for CircuitBreaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CircuitBreaker")
            .field("name", &self.shared.config.name)
            .field("state", &self.state())
            .finish()
    }
}

/// Why `admit` did not admit.
enum Refusal {
    /// Fail fast; retry after this long.
    Open(Duration),
    /// With a shared store: the fleet's window elapsed; claim a trial lease of this generation.
    #[cfg(feature = "redis")]
    Claim(u64),
}

/// With a shared store, its background work ends with the breaker's last clone, at once and
/// without clean-up (a trial in flight is left to its lease).
#[cfg(feature = "redis")]
impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(fleet) = &self.fleet {
            fleet.detach();
        }
    }
}

/// One admitted call. Settled with its outcome, or, if dropped unsettled (the caller's future
/// was cancelled), it frees its half-open slot so the breaker cannot stick half-open.
struct Permit<'a> {
    breaker: &'a CircuitBreaker,
    ticket: Option<Ticket>,
}

impl Permit<'_> {
    #[inline]
    fn settle(&mut self, outcome: Outcome) {
        if let Some(ticket) = self.ticket.take() {
            self.breaker.settle(ticket, outcome);
        }
    }
}

impl Drop for Permit<'_> {
    #[inline]
    fn drop(&mut self) {
        // Only a trial holds anything to free; a closed breaker's call leaves without the lock.
        if let Some(ticket) = self.ticket.take().filter(|ticket| ticket.trial.is_some()) {
            self.breaker.machine().abandon(ticket);
            #[cfg(feature = "redis")]
            self.breaker.fleet_settled(ticket, None);
        }
    }
}

/// With a shared store (`shared/`, through the `Fleet` seam): how the breaker consults it on its
/// cold paths, and applies the fleet's verdicts.
#[cfg(feature = "redis")]
impl CircuitBreaker {
    /// A breaker whose cold paths go through `fleet`.
    pub(crate) fn with_fleet(config: Config, fleet: Arc<dyn Fleet>) -> Self {
        CircuitBreaker::of(config, Some(fleet))
    }

    /// The fleet's say on admission, for a breaker that mirrors its open verdict.
    fn fleet_gate(&self, machine: &Machine) -> Option<Gate> {
        let fleet = self.shared.fleet.as_ref()?;
        fleet.gate(
            machine.state(),
            machine.fleet_open(),
            machine.trials_in_flight(),
        )
    }

    /// Claims the fleet's trial lease (waiting at most the store's claim timeout), then admits
    /// the call as that trial, or says how long to wait.
    async fn claim_trial(&self, generation: u64) -> Result<Ticket, Duration> {
        let Some(fleet) = self.shared.fleet.clone() else {
            return Err(Duration::ZERO);
        };
        let claim = fleet.claim(generation).await;
        let Shared { config, fast, .. } = &*self.shared;
        let mut changes = Vec::new();
        let mut machine = self.machine();
        let admitted = match claim {
            Claim::Won { token, slot, lease } => {
                match machine.begin_fleet_trial(generation, lease, config, fast, &mut changes) {
                    Some(ticket) => {
                        let trial = ticket.trial.expect("a fleet trial has a slot");
                        fleet.trial_started(trial, generation, token, slot);
                        Ok(ticket)
                    }
                    None => {
                        fleet.give_back(generation, token, slot);
                        fast.counters.reject();
                        Err(Duration::ZERO)
                    }
                }
            }
            Claim::Refused(retry_after) => {
                fast.counters.reject();
                Err(retry_after)
            }
            Claim::TimedOut => {
                fast.counters.reject();
                Err(Duration::ZERO)
            }
            Claim::Closed => {
                machine.fleet_closed(generation, config, fast, &mut changes);
                machine.admit(config, fast, &mut changes)
            }
            Claim::Gone => {
                machine.forget_fleet();
                machine.admit(config, fast, &mut changes)
            }
        };
        drop(machine);
        self.announce(changes);
        admitted
    }

    /// A failure counted while closed: the store publishes it.
    #[cold]
    fn fleet_failure(&self) {
        if let Some(fleet) = &self.shared.fleet {
            fleet.failure();
        }
    }

    /// A call settled (or abandoned: `None`) by the machine.
    fn fleet_settled(&self, ticket: Ticket, outcome: Option<Outcome>) {
        let Some(fleet) = &self.shared.fleet else {
            return;
        };
        match ticket.trial {
            Some(trial) => fleet.trial_settled(trial, outcome),
            None if outcome == Some(Outcome::Failure) => fleet.failure(),
            None => {}
        }
    }

    /// The fleet is open at `generation` for `remaining` more.
    pub(crate) fn apply_fleet_open(&self, generation: u64, remaining: Duration) {
        let Shared { config, fast, .. } = &*self.shared;
        let mut changes = Vec::new();
        self.machine()
            .adopt_fleet_open(generation, remaining, config, fast, &mut changes);
        self.announce(changes);
    }

    /// The fleet has no open record, and closed every generation up to `closed`: close if
    /// this instance mirrors one of those; if it mirrors a later one, the record was lost (Redis
    /// restarted): an absent key never closes an open instance, its own window decides.
    pub(crate) fn apply_fleet_absent(&self, closed: u64) {
        let Shared { config, fast, .. } = &*self.shared;
        let mut changes = Vec::new();
        let mut machine = self.machine();
        match machine.fleet_open() {
            Some(open) if open <= closed => {
                machine.fleet_closed(closed, config, fast, &mut changes);
            }
            Some(_) => machine.forget_fleet(),
            None => {}
        }
        drop(machine);
        self.announce(changes);
    }

    /// An operator's hold set (or released) on another instance.
    pub(crate) fn apply_fleet_hold(&self, hold: Option<BreakerState>) {
        self.force_here(hold);
    }
}

// Unit tests run with std's types; under loom the models in `loom/` stand in for them.
#[cfg(all(test, not(green_tea_loom)))]
mod tests;
