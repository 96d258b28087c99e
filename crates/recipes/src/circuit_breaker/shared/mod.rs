//! A breaker whose failures and verdict are shared across instances through Redis (feature
//! `redis`). Design, failure modes and cost: `docs/recipes/shared-circuit-breaker.md`.
//!
//! Each instance still decides each call from memory: a closed, healthy breaker sends Redis
//! nothing per call. Its failures are published in the background (coalesced) to a fleet-wide
//! count; at the threshold (from at least `quorum` instances) one script opens the fleet with a
//! record whose window is measured by Redis's clock. Every instance refreshes its view of that
//! record in the background and treats a shared open as open. When the window ends, one
//! instance claims the trial lease (`SET NX PX`, the only time a call waits on Redis, bounded by
//! the claim timeout); its result closes or re-opens the fleet, fenced by its token and the
//! record's generation. Redis slow or gone: the breaker works on local state, says so
//! ([`CircuitBreaker::degraded`]), and shares again when Redis answers.
//!
//! ```no_run
//! use green_tea_recipes::circuit_breaker::{CircuitBreaker, Config};
//! use green_tea_recipes::circuit_breaker::shared::SharedConfig;
//! use std::time::Duration;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let breaker = CircuitBreaker::shared(
//!     Config::new(3, Duration::from_secs(30))
//!         .call_timeout(Duration::from_secs(2)) // a trial's lease is built on it
//!         .name("billing"),
//!     SharedConfig::new("redis://127.0.0.1:6379/"),
//! )
//! .await?;
//! # let _ = breaker; Ok(()) }
//! ```

mod config;
mod error;
mod keys;
mod link;
#[cfg(feature = "metrics")]
mod metrics;
mod pending;
mod scripts;
mod store;
mod view;
mod worker;

use std::sync::Arc;
use std::time::Duration;

pub use config::{SharedConfig, Topology};
pub use error::SharedError;

use super::breaker::CircuitBreaker;
use super::config::{Config, OpenDuration};
use keys::Keys;
use link::{Bounds, Link};
use scripts::Common;
use store::{Handle, Parts, Store};

impl CircuitBreaker {
    /// A breaker with `config` whose state is shared through Redis as `shared` says. It reads
    /// the fleet's state once before it returns (bounded by the connect and response timeouts),
    /// so an instance started while the fleet is open starts open; then a background task on
    /// the current tokio runtime keeps it shared.
    ///
    /// Refused, on every topology: no call timeout, an empty name, braces in the name or the
    /// prefix (they would break the hash tag that keeps a breaker's keys in one Cluster slot),
    /// a URL of no topology; on a Cluster or behind Sentinel, a list of addresses none of
    /// which answers within the connect and response timeouts.
    pub async fn shared(config: Config, shared: SharedConfig) -> Result<Self, SharedError> {
        let call_timeout = config.call_timeout.ok_or(SharedError::NoCallTimeout)?;
        check_hash_tag(&config.name, &shared.prefix)?;
        let location = shared.location();
        let link = Link::connect(
            &shared.url,
            Bounds {
                connect: shared.connect_timeout,
                response: shared.response_timeout,
                round_trip: shared.connect_timeout + shared.response_timeout,
                retry_wait: shared.refresh_interval,
            },
            &scripts::BODIES,
        )
        .await?;
        let (base, cap) = match config.open_duration {
            OpenDuration::Fixed(window) => (window, window),
            OpenDuration::Exponential { base, cap } => (base, cap.max(base)),
        };
        let lease = call_timeout.saturating_add(shared.lease_margin);
        let instance = shared.instance.clone().unwrap_or_else(instance_id);
        let run = fastrand::u32(..);
        let keys = Keys::new(
            &shared.prefix,
            &config.name,
            config.half_open_trials,
            &instance,
            run,
        );
        let common = Common {
            instance,
            threshold: config.threshold,
            quorum: shared.quorum,
            window_ms: millis(shared.failure_window),
            base_ms: millis(base),
            cap_ms: millis(cap),
            lease_ms: millis(lease).max(1),
        };
        let store = Arc::new(Store::new(
            link,
            Parts {
                location: format!("{location} as {}", keys.base()),
                keys,
                common,
                refresh_interval: shared.refresh_interval,
                round_trip: shared.connect_timeout + shared.response_timeout,
                claim_timeout: shared.claim_timeout,
                degrade_after: shared.claim_timeouts_to_degrade,
                max_trials: config.half_open_trials as usize,
                name: std::sync::Arc::clone(&config.name),
            },
        ));
        let breaker = CircuitBreaker::with_fleet(config, Arc::new(Handle(Arc::clone(&store))));
        let worker = tokio::spawn(worker::run(
            Arc::clone(&store),
            Arc::downgrade(&breaker.shared),
        ));
        store.set_worker(worker.abort_handle());
        // The first refresh, before any call: a fleet that is open opens this one too.
        breaker.sync().await;
        Ok(breaker)
    }

    /// With a shared store: waits until everything this breaker queued for Redis so far was
    /// sent and one refresh of the fleet's state completed, and says whether Redis answered
    /// (`false`: it is degraded for now). For tests and orderly shutdowns; calls never need it.
    /// Without a store: `true` at once.
    pub async fn sync(&self) -> bool {
        match self.store() {
            Some(store) => store.sync().await,
            None => true,
        }
    }

    /// With a shared store: whether it works on local state alone for now, because Redis is
    /// slow or unreachable. It shares again by itself when Redis answers.
    pub fn degraded(&self) -> bool {
        self.store().is_some_and(|store| store.degraded())
    }

    /// With a shared store: where its state is shared (the Redis URL without any password,
    /// and the keys' hash-tagged prefix), for banners and `explain`.
    pub fn shared_at(&self) -> Option<String> {
        self.store().map(|store| store.location.clone())
    }

    /// How many times the background task read the fleet's state (for the commandstats test).
    #[doc(hidden)]
    pub fn shared_refreshes(&self) -> u64 {
        self.store().map_or(0, |store| {
            store.refreshes.load(std::sync::atomic::Ordering::SeqCst)
        })
    }

    /// The errors its store met, by kind (what `green_tea.breaker.store.errors` counts), for
    /// the topology tests; empty without a store.
    #[doc(hidden)]
    pub fn shared_errors(&self) -> Vec<(&'static str, u64)> {
        self.store().map_or_else(Vec::new, |store| store.errors())
    }

    fn store(&self) -> Option<&Arc<Store>> {
        let fleet = self.shared.fleet.as_ref()?;
        // The only `Fleet` there is.
        let handle: &dyn std::any::Any = fleet.as_any();
        handle.downcast_ref::<Handle>().map(|handle| &handle.0)
    }
}

/// The name is the keys' hash tag: refused where it, or the prefix, would not make one.
fn check_hash_tag(name: &str, prefix: &str) -> Result<(), SharedError> {
    let braced = |text: &str| text.contains(['{', '}']);
    if name.is_empty() {
        return Err(SharedError::EmptyName);
    }
    if braced(name) {
        return Err(SharedError::BraceInName {
            name: name.to_owned(),
        });
    }
    if braced(prefix) {
        return Err(SharedError::BraceInPrefix {
            prefix: prefix.to_owned(),
        });
    }
    Ok(())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Host, process and a random suffix: two breakers in one process are two instances.
fn instance_id() -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".to_owned());
    format!("{host}-{}-{:08x}", std::process::id(), fastrand::u32(..))
}
