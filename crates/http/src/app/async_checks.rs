//! `AppBuilder`'s async health checks: their registration and the app's default timing.

use std::time::Duration;

use green_tea_core::{AsyncHealthCheck, CheckTiming, Key, Location, TypeInfo};

use super::AppBuilder;
use crate::health::AsyncCheckSetting;

impl AppBuilder {
    /// Asks the value under `key`, of type `T`, for its health in
    /// [`App::health`](crate::App::health) by calling out (a `SELECT 1`, a Redis `PING`):
    /// see [`AsyncHealthCheck`]. With the app's timing: a timeout of 1 s and answers kept for
    /// 5 s unless [`health_check_timeout`](Self::health_check_timeout) and
    /// [`health_check_cache`](Self::health_check_cache) say otherwise;
    /// [`async_health_check_with`](Self::async_health_check_with) sets a check's own.
    ///
    /// In `health()` every async check whose answer is older than its cache interval runs,
    /// concurrently with the others, under its timeout: past it, the check reports down
    /// ("timed out after 1s"); a check that panics reports down, and the app goes on. Its
    /// answer is kept for the interval and given to every `health()` in that time, and
    /// callers that come while it runs wait for it rather than start another: a storm of
    /// probes makes one check. The value is asked only while it is built, never built to be
    /// asked, and not once the app's container is closed.
    ///
    /// A down answer makes the key's module down, a degraded one degraded; if the key is
    /// also marked [`critical`](Self::critical), a down answer makes the app not ready (its
    /// readiness route answers 503). A synchronous [`health_check`](Self::health_check)
    /// never changes readiness.
    ///
    /// A key nothing provides, or one of another type, is a build error (GT0009).
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::health::{AsyncHealthCheck, Check, CheckStatus};
    ///
    /// struct Database;
    ///
    /// impl AsyncHealthCheck for Database {
    ///     async fn check(&self) -> Check {
    ///         Check::down("connection refused") // a real one runs `SELECT 1`
    ///     }
    /// }
    ///
    /// # #[tokio::main] async fn main() {
    /// let app = App::builder()
    ///     .value("db", Database)
    ///     .critical("db")
    ///     .async_health_check::<Database>("db")
    ///     .build()
    ///     .unwrap();
    /// app.start().await.unwrap();
    /// app.get::<Database>("db").await.unwrap();
    /// let health = app.health().await;
    /// assert_eq!(health.checks[0].check.as_ref().unwrap().status, CheckStatus::Down);
    /// assert!(!health.ready);
    /// assert_eq!(health.reasons, ["critical `db`: check down: connection refused"]);
    /// # app.close().await.unwrap(); }
    /// ```
    #[track_caller]
    pub fn async_health_check<T: AsyncHealthCheck>(self, key: impl Into<Key>) -> Self {
        self.push_async_check::<T>(key.into(), CheckTiming::new(), Location::caller())
    }

    /// [`async_health_check`](Self::async_health_check) with this check's own `timing`;
    /// what it leaves unset is the app's.
    ///
    /// ```
    /// use std::time::Duration;
    /// use green_tea::App;
    /// use green_tea::health::{AsyncHealthCheck, Check, CheckTiming};
    ///
    /// struct Redis;
    ///
    /// impl AsyncHealthCheck for Redis {
    ///     async fn check(&self) -> Check {
    ///         Check::up() // a real one sends `PING`
    ///     }
    /// }
    ///
    /// let app = App::builder()
    ///     .value("cache", Redis)
    ///     .async_health_check_with::<Redis>(
    ///         "cache",
    ///         CheckTiming::new()
    ///             .timeout(Duration::from_millis(200))
    ///             .cache_for(Duration::from_secs(2)),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// ```
    #[track_caller]
    pub fn async_health_check_with<T: AsyncHealthCheck>(
        self,
        key: impl Into<Key>,
        timing: CheckTiming,
    ) -> Self {
        self.push_async_check::<T>(key.into(), timing, Location::caller())
    }

    /// How long `health()` waits for an async check's answer, for the checks that do not set
    /// their own (default 1 s, [`CheckTiming::DEFAULT_TIMEOUT`]); past it, the check reports
    /// down. Applies to every such check, registered before this call or after.
    pub fn health_check_timeout(mut self, timeout: Duration) -> Self {
        self.health.async_check_timing = self.health.async_check_timing.timeout(timeout);
        self
    }

    /// How long an async check's answer is kept and given again, for the checks that do not
    /// set their own (default 5 s, [`CheckTiming::DEFAULT_CACHE`]). Applies to every such
    /// check, registered before this call or after.
    pub fn health_check_cache(mut self, interval: Duration) -> Self {
        self.health.async_check_timing = self.health.async_check_timing.cache_for(interval);
        self
    }

    fn push_async_check<T: AsyncHealthCheck>(
        mut self,
        key: Key,
        timing: CheckTiming,
        location: Location,
    ) -> Self {
        self.health.async_checks.push(AsyncCheckSetting {
            key,
            location,
            ty: TypeInfo::of::<T>(),
            timing,
            ask: crate::health::ask_async::<T>,
        });
        self
    }
}
