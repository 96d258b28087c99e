//! What a breaker asks of a shared store, and tells it, on its cold paths only: admission while
//! open, the failures it counted, its trials' results and operator holds. A breaker without a
//! store never reaches this file; a closed breaker with one reaches it only when a call fails.
//!
//! The store itself (Redis, feature `redis`) is in `shared/`; this is the seam, so the breaker's
//! own files (and the loom models that include them) know nothing of Redis.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use std::sync::Arc;

use super::call::{Outcome, Ticket};
use super::config::Config;
use super::counters::{AtomicCounters, Counters};
use super::fast_path::FastPath;
use super::machine::Machine;
use super::state::BreakerState;
use super::sync::Mutex;
use super::{CircuitBreaker, Shared};

/// The fleet's answer to "may this open breaker call now?", from its cached view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Fail fast: the fleet's window has not elapsed, or another instance holds the trial.
    Refuse(Duration),
    /// The fleet's window has elapsed: claim a trial lease of the fleet's open generation.
    Claim(u64),
}

/// How a lease claim ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// This instance holds trial slot `slot` of the generation, for `lease`.
    Won {
        /// The fence: only the holder of this token may settle the trial.
        token: String,
        slot: u32,
        lease: Duration,
    },
    /// Not now: another instance holds every slot, or the window has not elapsed (for so long).
    Refused(Duration),
    /// The fleet closed meanwhile (another instance's trial succeeded, or an operator released
    /// it): close, and admit as closed.
    Closed,
    /// The open record is gone without being closed (Redis restarted, or the safety TTL ran out
    /// with no trial): the local state decides.
    Gone,
    /// The claim did not answer within its bound: fail fast, as if another instance held it.
    TimedOut,
}

/// A claim under way (boxed: only calls that claim a lease pay for it).
pub(crate) type Claiming = Pin<Box<dyn Future<Output = Claim> + Send>>;

/// A breaker's shared store, as the breaker sees it. Every method returns at once except
/// `claim`'s future, which the store bounds by its claim timeout.
pub(crate) trait Fleet: Send + Sync + 'static {
    /// Decides for a breaker whose machine mirrors the fleet's open generation `fleet_open`
    /// (`None`: the machine decides alone).
    fn gate(&self, state: BreakerState, fleet_open: Option<u64>, trials: usize) -> Option<Gate>;

    /// Claims a trial lease of generation `generation`.
    fn claim(&self, generation: u64) -> Claiming;

    /// The machine took the won lease as trial `trial`; the store keeps its token to settle it.
    fn trial_started(&self, trial: u64, generation: u64, token: String, slot: u32);

    /// A won lease the machine could not use (it moved on meanwhile): give it back.
    fn give_back(&self, generation: u64, token: String, slot: u32);

    /// A call failed while the breaker was closed (published in the background, coalesced).
    fn failure(&self);

    /// Trial `trial` ended with `outcome` (`None`: its caller dropped it).
    fn trial_settled(&self, trial: u64, outcome: Option<Outcome>);

    /// An operator's hold on this instance, for the whole fleet (`None`: released).
    fn hold(&self, hold: Option<BreakerState>);

    /// Adds the store's own figures to the breaker's counters.
    fn fill(&self, counters: &mut Counters);

    /// The breaker is gone: stop its background work now, without any clean-up.
    fn detach(&self);

    /// For the store's own methods on the breaker (`sync`, `degraded`...).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The breaker's side of the seam: how it consults its store and applies the fleet's verdicts.
impl CircuitBreaker {
    /// A breaker whose cold paths go through `fleet`.
    pub(crate) fn with_fleet(config: Config, fleet: Arc<dyn Fleet>) -> Self {
        let machine = Machine::new(&config);
        CircuitBreaker {
            shared: Arc::new(Shared {
                fast: FastPath::new(machine.word(), AtomicCounters::of(&config.name)),
                machine: Mutex::new(machine),
                config,
                fleet: Some(fleet),
                #[cfg(test)]
                locks: Default::default(),
            }),
        }
    }

    /// The fleet's say on admission, for a breaker that mirrors its open verdict.
    pub(super) fn fleet_gate(&self, machine: &Machine) -> Option<Gate> {
        let fleet = self.shared.fleet.as_ref()?;
        fleet.gate(
            machine.state(),
            machine.fleet_open(),
            machine.trials_in_flight(),
        )
    }

    /// Claims the fleet's trial lease (waiting at most the store's claim timeout), then admits
    /// the call as that trial, or says how long to wait.
    pub(super) async fn claim_trial(&self, generation: u64) -> Result<Ticket, Duration> {
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
    pub(super) fn fleet_failure(&self) {
        if let Some(fleet) = &self.shared.fleet {
            fleet.failure();
        }
    }

    /// A call settled (or abandoned: `None`) by the machine.
    pub(super) fn fleet_settled(&self, ticket: Ticket, outcome: Option<Outcome>) {
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
