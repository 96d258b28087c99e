//! Time as the breaker sees it, injected so tests never sleep.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic clock: the time since some fixed start.
pub trait Clock: Send + Sync + 'static {
    /// Now, as a duration since the clock's start.
    fn now(&self) -> Duration;
}

/// The real clock (`Instant`).
#[derive(Clone, Copy, Debug)]
pub struct SystemClock {
    start: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock {
            start: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }
}

/// A clock that moves only when told: the reference guide's `() => clock`.
///
/// ```
/// use green_tea_recipes::circuit_breaker::{Clock, ManualClock};
/// use std::time::Duration;
/// let clock = ManualClock::new();
/// clock.set(Duration::from_millis(2000));
/// clock.advance(Duration::from_millis(500));
/// assert_eq!(clock.now(), Duration::from_millis(2500));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock at zero.
    pub fn new() -> Self {
        ManualClock::default()
    }

    /// Sets the time.
    pub fn set(&self, now: Duration) {
        self.nanos.store(to_nanos(now), Ordering::SeqCst);
    }

    /// Moves the time forward.
    pub fn advance(&self, by: Duration) {
        self.nanos.fetch_add(to_nanos(by), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

fn to_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
