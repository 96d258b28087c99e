//! `BillingSettings`: how the app reaches billing and how its breaker trips, read at `build()`
//! as the settings key `billingSettings` (`BILLING_*` variables, or the file's `[billing]`).

use std::time::Duration;

use green_tea_core::Settings;

use super::client::parse_base;
use crate::circuit_breaker::{CircuitBreaker, Config};

/// Billing's settings, each with the guide's default: `BILLING_URL`, `BILLING_TIMEOUT`,
/// `BILLING_BREAKER_THRESHOLD` and `BILLING_BREAKER_RESET` (or `url`, `timeout` in the file's
/// `[billing]` table and `threshold`, `reset` in `[billing.breaker]`). Register
/// `BillingSettings::provider()`; `billingApi` and `billing` need it.
///
/// The timeout and the breaker's settings may reload (`App::reload()`): a change builds
/// `billingApi` and `billing` anew (a new client; a new breaker, closed, when its settings
/// changed). The URL needs a restart.
///
/// ```
/// use std::time::Duration;
/// use green_tea_core::Container;
/// use green_tea_core::settings::{Settings, Sources};
/// use green_tea_recipes::billing::BillingSettings;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .settings(Sources::from_env_map([
///         ("BILLING_TIMEOUT", "500ms"),
///         ("BILLING_BREAKER_THRESHOLD", "5"),
///     ]))
///     .provider(BillingSettings::provider())
///     .build()
///     .unwrap();
/// let billing = container.get::<BillingSettings>("billingSettings").await.unwrap();
/// assert_eq!(billing.url, None); // unset: no billing service yet
/// assert_eq!(billing.timeout, Duration::from_millis(500));
/// assert_eq!(billing.breaker.threshold, 5);
/// assert_eq!(billing.breaker.reset, Duration::from_secs(30));
/// # container.close().await.unwrap(); }
/// ```
#[derive(Settings, Clone, Debug, PartialEq, Eq)]
#[settings(
    provides = "billingSettings",
    prefix = "BILLING",
    validate = BillingSettings::check
)]
pub struct BillingSettings {
    /// The billing service, an `http://` URL: `BILLING_URL`. Unset, `billingApi` cannot be
    /// built ([`BillingError::NoUrl`](super::BillingError::NoUrl)); an app that runs without
    /// one decides on it with a switch (the orders demo starts a fake billing service then).
    pub url: Option<String>,
    /// Each call's timeout, in human form: `BILLING_TIMEOUT` (default `2s`).
    #[settings(default = "2s", reload)]
    pub timeout: Duration,
    /// The breaker in front of billing: `BILLING_BREAKER_*`.
    #[settings(nested, reload)]
    pub breaker: BreakerSettings,
}

/// When billing's breaker opens, and for how long (nested in [`BillingSettings`]).
#[derive(Settings, Clone, Debug, PartialEq, Eq)]
#[settings(validate = BreakerSettings::check)]
pub struct BreakerSettings {
    /// Consecutive failures that open it, at least 1: `BILLING_BREAKER_THRESHOLD` (default 3).
    #[settings(default = "3")]
    pub threshold: u32,
    /// How long it stays open: `BILLING_BREAKER_RESET` (default `30s`).
    #[settings(default = "30s")]
    pub reset: Duration,
}

impl BillingSettings {
    /// The breaker these settings describe: a failure is whatever
    /// [`BillingError::is_upstream_failure`](super::BillingError::is_upstream_failure) says; a
    /// call is bounded by the timeout.
    pub fn breaker(&self) -> CircuitBreaker {
        CircuitBreaker::new(self.breaker_config().name("billing"))
    }

    /// The breaker's configuration (threshold, reset, call timeout), unnamed: for a breaker
    /// made otherwise, such as one shared through Redis.
    pub fn breaker_config(&self) -> Config {
        Config::new(self.breaker.threshold, self.breaker.reset).call_timeout(self.timeout)
    }

    /// Refused at `build()` rather than at billing's first call: a URL the client cannot use,
    /// and a zero timeout (every call would time out).
    fn check(&self) -> Result<(), String> {
        if let Some(url) = &self.url {
            parse_base(url).map_err(|e| e.to_string())?;
        }
        if self.timeout.is_zero() {
            return Err("`timeout` is zero: every call would time out".to_owned());
        }
        Ok(())
    }
}

impl BreakerSettings {
    /// A threshold of 0 would mean "open before any failure"; the breaker would take it as 1.
    fn check(&self) -> Result<(), String> {
        if self.threshold == 0 {
            return Err("`threshold` must be at least 1".to_owned());
        }
        Ok(())
    }
}
