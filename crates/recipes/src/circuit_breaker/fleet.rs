//! What a breaker asks of a shared store, and tells it, on its cold paths only: admission while
//! open, the failures it counted, its trials' results and operator holds. A breaker without a
//! store never reaches this file; a closed breaker with one reaches it only when a call fails.
//!
//! The store itself (Redis, feature `redis`) is in `shared/`, and the breaker's side of the seam
//! (when it asks, and how it applies the fleet's verdicts) in `breaker.rs`; this is the seam, so
//! the breaker's own files (and the loom models that include them) know nothing of Redis.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use super::call::Outcome;
use super::counters::Counters;
use super::state::BreakerState;

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
