//! [`AsyncHealthCheck`]: a provider's value that answers its health by calling out (a
//! `SELECT 1`, a Redis `PING`), and [`CheckTiming`], how long the app waits for its answer and
//! how long it keeps it.

use std::future::Future;
use std::time::Duration;

use crate::health::Check;

/// A provider's value whose health is found by calling out: a database's `SELECT 1`, a
/// Redis `PING`. Register it on the app builder with the key that holds it
/// (`AppBuilder::async_health_check::<T>("db")`); the app asks it in `health()` while the
/// value is built and the app is not closed (never building it to ask), under a timeout, and
/// keeps its answer for a while, so that many health requests make one check.
///
/// Write `async fn check(&self) -> Check` in the impl. The future it returns must be `Send`:
/// the readiness route awaits it on the server's tasks.
///
/// The synchronous [`HealthCheck`](crate::HealthCheck) is for state the value already has (a
/// circuit breaker's): it is asked on every `health()`, without a timeout or a cache.
///
/// ```
/// use green_tea::health::{AsyncHealthCheck, Check, CheckStatus};
///
/// struct Database { reachable: bool }
///
/// impl AsyncHealthCheck for Database {
///     async fn check(&self) -> Check {
///         // A real one would run `SELECT 1` on its pool here.
///         tokio::task::yield_now().await;
///         if self.reachable { Check::up() } else { Check::down("connection refused") }
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let db = Database { reachable: false };
/// assert_eq!(db.check().await.status, CheckStatus::Down);
/// # }
/// ```
#[diagnostic::on_unimplemented(
    note = "an async health check is a provider's value type that implements \
            `green_tea::health::AsyncHealthCheck` (`async fn check(&self) -> Check`)"
)]
pub trait AsyncHealthCheck: Send + Sync + 'static {
    /// Finds the value's state: may call out (the app bounds it with a timeout).
    fn check(&self) -> impl Future<Output = Check> + Send;
}

/// How the app asks one [`AsyncHealthCheck`]: how long it waits for the answer (past it, the
/// check reports down, "timed out after ..."), and how long it keeps an answer and gives it
/// again instead of asking anew. What it leaves unset is the app's default
/// (`AppBuilder::health_check_timeout`, `AppBuilder::health_check_cache`; without them
/// [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT) and [`DEFAULT_CACHE`](Self::DEFAULT_CACHE)).
///
/// ```
/// use std::time::Duration;
/// use green_tea::health::CheckTiming;
///
/// let timing = CheckTiming::new().timeout(Duration::from_millis(300));
/// assert_eq!(timing.timeout_or(CheckTiming::DEFAULT_TIMEOUT), Duration::from_millis(300));
/// // The cache interval is left to the app.
/// assert_eq!(timing.cache_for_or(Duration::from_secs(10)), Duration::from_secs(10));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckTiming {
    timeout: Option<Duration>,
    cache_for: Option<Duration>,
}

impl CheckTiming {
    /// The default timeout of an async check: 1 s.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

    /// The default time an async check's answer is kept: 5 s.
    pub const DEFAULT_CACHE: Duration = Duration::from_secs(5);

    /// Both left to the app's defaults (the same as `CheckTiming::default()`).
    pub const fn new() -> Self {
        CheckTiming {
            timeout: None,
            cache_for: None,
        }
    }

    /// Waits at most `timeout` for the check's answer; past it, the check reports down.
    #[must_use]
    pub const fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Keeps an answer for `interval` after it was made, and gives it to every `health()`
    /// in that time; `Duration::ZERO` asks anew each time (concurrent callers still share
    /// one check).
    #[must_use]
    pub const fn cache_for(mut self, interval: Duration) -> Self {
        self.cache_for = Some(interval);
        self
    }

    /// Its timeout, or `default` if it leaves it unset.
    pub fn timeout_or(&self, default: Duration) -> Duration {
        self.timeout.unwrap_or(default)
    }

    /// Its cache interval, or `default` if it leaves it unset.
    pub fn cache_for_or(&self, default: Duration) -> Duration {
        self.cache_for.unwrap_or(default)
    }
}
