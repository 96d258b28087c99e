//! How a breaker behaves: threshold, open duration, trials, call timeout, clock, and who is told
//! of its transitions.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::clock::{Clock, SystemClock};
use super::state::Transition;

/// How long the breaker stays open before it lets a trial through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenDuration {
    /// Always the same (the reference guide's behaviour, and the default).
    Fixed(Duration),
    /// Grows with each consecutive opening: uniformly random in `[base, min(cap, base·2ⁿ)]`,
    /// where `n` counts the openings since the breaker last closed ("full jitter" over the
    /// exponential range, never shorter than `base`).
    Exponential {
        /// The first opening's duration.
        base: Duration,
        /// The longest it may get.
        cap: Duration,
    },
}

/// The callback told of every state change, outside any lock.
pub type OnTransition = Arc<dyn Fn(&Transition) + Send + Sync>;

/// A breaker's settings. The defaults are the reference guide's: 3 consecutive failures open
/// it for 30 s, then one trial.
///
/// ```
/// use green_tea_recipes::circuit_breaker::{CircuitBreaker, Config, OpenDuration};
/// use std::time::Duration;
/// let breaker = CircuitBreaker::new(
///     Config::new(5, Duration::from_secs(10))
///         .half_open_trials(2)
///         .call_timeout(Duration::from_secs(2))
///         .open_duration(OpenDuration::Exponential {
///             base: Duration::from_secs(10),
///             cap: Duration::from_secs(300),
///         }),
/// );
/// # let _ = breaker;
/// ```
#[derive(Clone)]
pub struct Config {
    pub(crate) threshold: u32,
    pub(crate) open_duration: OpenDuration,
    pub(crate) half_open_trials: u32,
    pub(crate) call_timeout: Option<Duration>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) on_transition: Option<OnTransition>,
    pub(crate) jitter_seed: Option<u64>,
    pub(crate) name: Arc<str>,
}

impl Default for Config {
    fn default() -> Self {
        Config::new(3, Duration::from_secs(30))
    }
}

impl Config {
    /// Opens after `threshold` consecutive failures (at least 1), for `reset` each time.
    pub fn new(threshold: u32, reset: Duration) -> Self {
        Config {
            threshold: threshold.max(1),
            open_duration: OpenDuration::Fixed(reset),
            half_open_trials: 1,
            call_timeout: None,
            clock: Arc::new(SystemClock::default()),
            on_transition: None,
            jitter_seed: None,
            name: Arc::from("breaker"),
        }
    }

    /// How long it stays open (default: fixed at the `reset` given to `new`).
    pub fn open_duration(mut self, open_duration: OpenDuration) -> Self {
        self.open_duration = open_duration;
        self
    }

    /// How many trials half-open admits at once (default 1, at least 1); the rest fail fast.
    pub fn half_open_trials(mut self, trials: u32) -> Self {
        self.half_open_trials = trials.max(1);
        self
    }

    /// Bounds each call: past it, the call is cancelled and counts as a failure. It is also the
    /// lease of a half-open trial. Default: none (a trial's lease is then the open duration).
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// The clock (default: the system's monotonic clock).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Called with every transition, outside the breaker's lock.
    pub fn on_transition(mut self, callback: impl Fn(&Transition) + Send + Sync + 'static) -> Self {
        self.on_transition = Some(Arc::new(callback));
        self
    }

    /// Seeds the jitter of an exponential open duration, for reproducible tests.
    pub fn jitter_seed(mut self, seed: u64) -> Self {
        self.jitter_seed = Some(seed);
        self
    }

    /// Names the breaker in its `tracing` events (default `breaker`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Arc::from(name);
        self
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("name", &self.name)
            .field("threshold", &self.threshold)
            .field("open_duration", &self.open_duration)
            .field("half_open_trials", &self.half_open_trials)
            .field("call_timeout", &self.call_timeout)
            .finish_non_exhaustive()
    }
}
