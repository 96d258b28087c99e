//! The Redis store: the connection, the cached view, the publisher's queue and the health of the
//! link. The breaker reaches it through the `Fleet` seam; the background task (`worker.rs`) is
//! the only one that waits on Redis, except a trial claim, which is bounded.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use redis::{RedisError, RedisResult, Value};
use tokio::sync::{Notify, watch};

use super::super::call::Outcome;
use super::super::counters::Counters;
use super::super::fleet::{Claim, Claiming, Fleet, Gate};
use super::super::state::BreakerState;
use super::keys::Keys;
use super::link::{ERROR_KINDS, Link, error_kind};
use super::pending::{Pending, Release};
use super::scripts::{Common, Lua, Reloaded, Scripts, number, text};
use super::view::View;

/// How far the background work has got: every `sync` request up to `done` was served, and
/// whether that round reached Redis.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Progress {
    pub(crate) done: u64,
    pub(crate) reached: bool,
}

/// One breaker's link to Redis.
pub(crate) struct Store {
    pub(crate) keys: Keys,
    pub(crate) common: Common,
    pub(crate) scripts: Scripts,
    pub(crate) link: Link,
    pub(crate) location: String,
    pub(crate) refresh_interval: Duration,
    /// Bounds every background round trip (connect + response): nothing waits longer.
    pub(crate) round_trip: Duration,
    claim_timeout: Duration,
    degrade_after: u32,
    max_trials: usize,
    pub(crate) view: Mutex<View>,
    pub(crate) pending: Mutex<Pending>,
    /// Trials this instance runs: their leases' tokens, to settle them.
    trials: Mutex<HashMap<u64, Release>>,
    pub(crate) wake: Notify,
    /// Bumped by every local verdict (a trial's result, a hold): a refresh that began before
    /// one is older than it and is not applied.
    pub(crate) epoch: AtomicU64,
    pub(crate) requested: AtomicU64,
    pub(crate) progress: watch::Sender<Progress>,
    degraded: AtomicBool,
    claim_streak: AtomicU32,
    claim_timeouts: AtomicU64,
    pub(crate) refreshes: AtomicU64,
    /// Errors met, by kind (`ERROR_KINDS`' order): what the metric counts, for tests too.
    errors: [AtomicU64; ERROR_KINDS.len()],
    worker: Mutex<Option<tokio::task::AbortHandle>>,
    #[cfg(feature = "metrics")]
    exported: super::metrics::StoreMetrics,
}

/// What `Store::new` needs beyond the connection.
pub(crate) struct Parts {
    pub(crate) keys: Keys,
    pub(crate) common: Common,
    pub(crate) location: String,
    pub(crate) refresh_interval: Duration,
    pub(crate) round_trip: Duration,
    pub(crate) claim_timeout: Duration,
    pub(crate) degrade_after: u32,
    pub(crate) max_trials: usize,
    /// The breaker's name, for its metrics.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) name: std::sync::Arc<str>,
}

impl Store {
    pub(crate) fn new(link: Link, parts: Parts) -> Self {
        Store {
            keys: parts.keys,
            common: parts.common,
            scripts: Scripts::new(),
            link,
            location: parts.location,
            refresh_interval: parts.refresh_interval,
            round_trip: parts.round_trip,
            claim_timeout: parts.claim_timeout,
            degrade_after: parts.degrade_after,
            max_trials: parts.max_trials,
            view: Mutex::default(),
            pending: Mutex::default(),
            trials: Mutex::default(),
            wake: Notify::new(),
            epoch: AtomicU64::new(0),
            requested: AtomicU64::new(0),
            progress: watch::Sender::new(Progress::default()),
            degraded: AtomicBool::new(false),
            claim_streak: AtomicU32::new(0),
            claim_timeouts: AtomicU64::new(0),
            refreshes: AtomicU64::new(0),
            errors: Default::default(),
            worker: Mutex::new(None),
            #[cfg(feature = "metrics")]
            exported: super::metrics::StoreMetrics::new(&parts.name),
        }
    }

    pub(crate) fn set_worker(&self, worker: tokio::task::AbortHandle) {
        *lock(&self.worker) = Some(worker);
    }

    pub(crate) fn degraded(&self) -> bool {
        self.degraded.load(SeqCst)
    }

    /// Counts an error of `kind` (one of `ERROR_KINDS`), for the metric and `errors`.
    pub(crate) fn count_error(&self, kind: &'static str) {
        let Some(at) = ERROR_KINDS.iter().position(|k| *k == kind) else {
            return;
        };
        self.errors[at].fetch_add(1, SeqCst);
        #[cfg(feature = "metrics")]
        self.exported.error(at);
    }

    /// The errors met so far, by kind.
    pub(crate) fn errors(&self) -> Vec<(&'static str, u64)> {
        ERROR_KINDS
            .iter()
            .zip(&self.errors)
            .map(|(kind, count)| (*kind, count.load(SeqCst)))
            .collect()
    }

    /// A round trip failed: counted by its kind, and the breaker works on local state.
    pub(crate) fn failed(&self, error: &RedisError) {
        self.count_error(error_kind(error));
        self.set_degraded(true, &error.to_string());
    }

    /// A round trip did not answer within its bound.
    pub(crate) fn timed_out(&self) {
        self.count_error("timeout");
        self.set_degraded(true, "Redis did not answer in time");
    }

    /// Switches between shared and local-only, logging once per change.
    pub(crate) fn set_degraded(&self, degraded: bool, why: &str) {
        if self.degraded.swap(degraded, SeqCst) == degraded {
            return;
        }
        #[cfg(feature = "metrics")]
        self.exported.degraded(degraded);
        let at = self.keys.base();
        if degraded {
            tracing::warn!(breaker = %at, store = %self.location, why, "shared breaker degraded: working on local state alone");
        } else {
            tracing::info!(breaker = %at, store = %self.location, "shared breaker: sharing resumed");
        }
    }

    /// A round trip answered within the claim timeout: claims may be tried again.
    pub(crate) fn answered_in(&self, took: Duration) {
        if took <= self.claim_timeout {
            self.claim_streak.store(0, SeqCst);
        }
        if self.claim_streak.load(SeqCst) < self.degrade_after {
            self.set_degraded(false, "");
        }
    }

    pub(crate) fn queue_cap(&self) -> usize {
        self.max_trials * 2 + 2
    }

    /// Waits until everything queued before the call was sent and one refresh completed.
    pub(crate) async fn sync(&self) -> bool {
        let wanted = self.requested.fetch_add(1, SeqCst) + 1;
        self.wake.notify_one();
        let mut progress = self.progress.subscribe();
        match progress.wait_for(|p| p.done >= wanted).await {
            Ok(progress) => progress.reached,
            Err(_) => false, // the worker is gone
        }
    }

    fn claim_ended(&self, timed_out: bool) {
        if !timed_out {
            self.claim_streak.store(0, SeqCst);
            return;
        }
        self.claim_timeouts.fetch_add(1, SeqCst);
        if self.claim_streak.fetch_add(1, SeqCst) + 1 >= self.degrade_after {
            self.set_degraded(true, "trial claims time out");
        }
    }

    /// Runs a transition's `script` with `extra` arguments on the breaker's keys. A script its
    /// node had not got (a restarted Redis, a promoted replica) was sent whole: counted.
    pub(crate) async fn run(&self, script: &Lua, extra: &[&str]) -> RedisResult<Vec<Value>> {
        let run = self
            .scripts
            .run(&self.link, script, &self.keys, &self.common, extra);
        self.noted(run.await)
    }

    /// Reads the fleet's state (the refresh script), counting a reload as `run` does.
    pub(crate) async fn read_state(&self) -> RedisResult<Vec<Value>> {
        self.noted(self.scripts.refresh(&self.link, &self.keys).await)
    }

    fn noted(&self, called: RedisResult<(Vec<Value>, Reloaded)>) -> RedisResult<Vec<Value>> {
        let (reply, reloaded) = called?;
        if reloaded {
            self.count_error("noscript");
        }
        Ok(reply)
    }

    async fn claim(self: Arc<Self>, generation: u64) -> Claim {
        let token = format!("{}:{:016x}", self.common.instance, fastrand::u64(..));
        let asked = Instant::now();
        let generation_arg = generation.to_string();
        let args = [generation_arg.as_str(), token.as_str()];
        let run = self.run(&self.scripts.claim, &args);
        let reply = match tokio::time::timeout(self.claim_timeout, run).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(error)) => {
                self.count_error(error_kind(&error));
                self.claim_ended(true);
                return Claim::TimedOut;
            }
            Err(_) => {
                self.count_error("timeout");
                self.claim_ended(true);
                return Claim::TimedOut;
            }
        };
        self.claim_ended(false);
        let ms = |at| Duration::from_millis(u64::try_from(number(&reply, at)).unwrap_or(0));
        match text(&reply, 0) {
            "won" => Claim::Won {
                token,
                slot: u32::try_from(number(&reply, 1)).unwrap_or(1),
                lease: ms(2),
            },
            "busy" => {
                lock(&self.view).busy_until = Some(asked + ms(1));
                Claim::Refused(ms(1))
            }
            "wait" => {
                let mut view = lock(&self.view);
                if view.open.is_some_and(|open| open.generation == generation) {
                    view.opened(generation, number(&reply, 1), asked);
                }
                Claim::Refused(ms(1))
            }
            "closed" => {
                lock(&self.view).closed();
                Claim::Closed
            }
            _ => Claim::Gone,
        }
    }
}

/// The breaker's handle on its store.
pub(crate) struct Handle(pub(crate) Arc<Store>);

impl Fleet for Handle {
    fn gate(&self, state: BreakerState, fleet_open: Option<u64>, trials: usize) -> Option<Gate> {
        let store = &self.0;
        if store.degraded() {
            return None;
        }
        lock(&store.view).gate(state, fleet_open, trials, store.max_trials, Instant::now())
    }

    fn claim(&self, generation: u64) -> Claiming {
        Box::pin(Arc::clone(&self.0).claim(generation))
    }

    fn trial_started(&self, trial: u64, generation: u64, token: String, slot: u32) {
        let release = Release {
            generation,
            token,
            slot,
            outcome: "release",
        };
        lock(&self.0.trials).insert(trial, release);
    }

    fn give_back(&self, generation: u64, token: String, slot: u32) {
        let release = Release {
            generation,
            token,
            slot,
            outcome: "release",
        };
        lock(&self.0.pending).release(release, self.0.queue_cap());
        self.0.wake.notify_one();
    }

    fn failure(&self) {
        lock(&self.0.pending).failure();
        self.0.wake.notify_one();
    }

    fn trial_settled(&self, trial: u64, outcome: Option<Outcome>) {
        let store = &self.0;
        let Some(mut release) = lock(&store.trials).remove(&trial) else {
            return;
        };
        release.outcome = match outcome {
            Some(Outcome::Success) => "success",
            Some(Outcome::Failure) => "failure",
            Some(Outcome::Ignored) | None => "release",
        };
        if release.outcome != "release" {
            store.epoch.fetch_add(1, SeqCst);
            lock(&store.view).closed(); // this instance's verdict stands until the reply
        }
        lock(&store.pending).release(release, store.queue_cap());
        store.wake.notify_one();
    }

    fn hold(&self, hold: Option<BreakerState>) {
        let store = &self.0;
        store.epoch.fetch_add(1, SeqCst);
        lock(&store.view).hold = hold;
        lock(&store.pending).hold = Some(hold);
        store.wake.notify_one();
    }

    fn fill(&self, counters: &mut Counters) {
        counters.degraded = self.0.degraded();
        counters.claim_timeouts = self.0.claim_timeouts.load(SeqCst);
    }

    fn detach(&self) {
        if let Some(worker) = lock(&self.0.worker).take() {
            worker.abort();
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Nothing under these locks panics; a poisoned one is still consistent.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
