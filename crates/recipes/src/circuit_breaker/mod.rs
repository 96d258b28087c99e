//! A circuit breaker: after enough consecutive failures it stops calling and fails fast for a
//! while, then lets a trial through to see whether the upstream recovered.
//!
//! The defaults keep the reference guide's semantics exactly: `threshold` consecutive failures
//! open it; while open, calls fail fast with [`BreakerError::Open`] and the operation is not
//! called; after the open window the next call is a half-open trial; a success closes it and
//! resets the count from any state; a failed trial re-opens it at once. Past the reference's
//! stated limits: half-open admits one trial (configurable), and a dropped or hung trial frees
//! its slot; outcomes can be classified ([`Outcome::Ignored`] for a 404); an optional call
//! timeout; a fixed or exponential open duration; transitions as `tracing` events and to a
//! callback; counters; operator holds.
//!
//! With the `redis` feature, `shared` (`CircuitBreaker::shared`) shares failures and the
//! verdict across instances through Redis, without a round trip per call.
//!
//! A closed breaker takes no lock per call: an atomic word mirrors the state and holds the
//! failure count, and calls admit and settle with a load and, when the count changes, a
//! compare-exchange on it. Open, half-open, trials, holds and every transition stay with a
//! state machine under one lock.
//!
//! ```
//! use green_tea_recipes::circuit_breaker::{BreakerState, CircuitBreaker, Config, ManualClock};
//! use std::time::Duration;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let clock = ManualClock::new();
//! let breaker = CircuitBreaker::new(Config::new(2, Duration::from_millis(1000)).clock(clock.clone()));
//! let down = || async { Err::<&str, _>("down") };
//!
//! assert!(breaker.call(down).await.is_err());
//! assert!(breaker.call(down).await.is_err());
//! assert_eq!(breaker.state(), BreakerState::Open);
//!
//! clock.set(Duration::from_millis(2000)); // the window elapsed
//! assert_eq!(breaker.call(|| async { Ok::<_, &str>("ok") }).await.unwrap(), "ok");
//! assert_eq!(breaker.state(), BreakerState::Closed);
//! # }
//! ```

mod call;
mod clock;
mod config;
mod counters;
mod error;
mod fast_path;
#[cfg(feature = "redis")]
mod fleet;
#[cfg(not(green_tea_loom))]
mod health;
mod machine;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "redis")]
pub mod shared;
mod state;
mod sync;
mod word;

use std::future::Future;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

pub use call::Outcome;
pub use clock::{Clock, ManualClock, SystemClock};
pub use config::{Config, OnTransition, OpenDuration};
pub use counters::Counters;
pub use error::BreakerError;
pub use state::{BreakerState, Transition};

use call::Ticket;
use counters::AtomicCounters;
use fast_path::FastPath;
use machine::Machine;
use sync::{Mutex, MutexGuard};

/// A circuit breaker. Cheap to clone: clones share one state, so it lives on a provider and is
/// built once with the app.
#[derive(Clone)]
pub struct CircuitBreaker {
    shared: Arc<Shared>,
}

/// A closed breaker's calls touch only `fast`: an atomic word that mirrors the machine's state
/// (and holds the failure count while closed) and atomic counters. Everything else (open,
/// half-open, trials, holds, transitions) is decided by the machine under its lock.
struct Shared {
    config: Config,
    fast: FastPath,
    machine: Mutex<Machine>,
    /// A shared store (`shared/`), consulted on the cold paths only.
    #[cfg(feature = "redis")]
    fleet: Option<Arc<dyn fleet::Fleet>>,
    /// How many times the lock was taken, so tests can tell the fast path from the machine.
    #[cfg(test)]
    locks: std::sync::atomic::AtomicU64,
}

impl CircuitBreaker {
    /// A breaker with `config`.
    pub fn new(config: Config) -> Self {
        let machine = Machine::new(&config);
        CircuitBreaker {
            shared: Arc::new(Shared {
                fast: FastPath::new(machine.word(), AtomicCounters::of(&config.name)),
                machine: Mutex::new(machine),
                config,
                #[cfg(feature = "redis")]
                fleet: None,
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
                fleet::Gate::Refuse(retry_after) => {
                    fast.counters.reject();
                    Err(Refusal::Open(retry_after))
                }
                fleet::Gate::Claim(generation) => Err(Refusal::Claim(generation)),
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

// Unit tests run with std's types; under loom the models in `loom/` stand in for them.
#[cfg(all(test, not(green_tea_loom)))]
mod tests;
