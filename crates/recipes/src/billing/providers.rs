//! The reference guide's two providers: `billingApi` holds the raw client and closes it on
//! dispose; `billing` wraps it in a circuit breaker that lives on the provider, so handlers can
//! reach billing only through the breaker.

use std::sync::Arc;
use std::time::Duration;

use green_tea_core::provider;
use green_tea_http::HttpError;

use super::client::{BillingClient, Charge};
use super::error::BillingError;
use crate::circuit_breaker::{BreakerError, CircuitBreaker, Config, Outcome};

/// Settings read from the environment, with the guide's defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BillingSettings {
    /// `BILLING_URL` (default `http://127.0.0.1:3001`).
    pub url: String,
    /// `BILLING_TIMEOUT_MS` (default 2000): each call's timeout.
    pub timeout: Duration,
    /// `BREAKER_THRESHOLD` (default 3): consecutive failures that open the breaker.
    pub threshold: u32,
    /// `BREAKER_RESET_MS` (default 30000): how long it stays open.
    pub reset: Duration,
}

impl Default for BillingSettings {
    fn default() -> Self {
        BillingSettings {
            url: "http://127.0.0.1:3001".to_owned(),
            timeout: Duration::from_millis(2000),
            threshold: 3,
            reset: Duration::from_millis(30_000),
        }
    }
}

impl BillingSettings {
    /// The defaults, overridden by whichever variables are set. A variable that is set but is
    /// not a number is an error naming it.
    pub fn from_env() -> Result<Self, String> {
        let defaults = BillingSettings::default();
        let number = |name: &str, default: u64| -> Result<u64, String> {
            match std::env::var(name) {
                Ok(text) => text
                    .trim()
                    .parse()
                    .map_err(|_| format!("{name}={text:?} is not a number")),
                Err(_) => Ok(default),
            }
        };
        Ok(BillingSettings {
            url: std::env::var("BILLING_URL").unwrap_or(defaults.url),
            timeout: Duration::from_millis(number("BILLING_TIMEOUT_MS", 2000)?),
            threshold: u32::try_from(number("BREAKER_THRESHOLD", 3)?).map_err(|e| e.to_string())?,
            reset: Duration::from_millis(number("BREAKER_RESET_MS", 30_000)?),
        })
    }

    /// The breaker these settings describe: a failure is whatever
    /// [`BillingError::is_upstream_failure`] says; a call is bounded by the timeout.
    pub fn breaker(&self) -> CircuitBreaker {
        CircuitBreaker::new(
            Config::new(self.threshold, self.reset)
                .call_timeout(self.timeout)
                .name("billing"),
        )
    }
}

/// The `billingApi` provider: the raw client. Its `dispose` closes the very client it handed
/// out.
#[derive(Debug)]
pub struct BillingApi {
    settings: Result<BillingSettings, String>,
}

#[provider(provides = "billingApi")]
impl BillingApi {
    /// From the environment ([`BillingSettings::from_env`]); bad settings fail the build of
    /// `billingApi` with a message naming the variable.
    pub fn new() -> Self {
        BillingApi {
            settings: BillingSettings::from_env(),
        }
    }

    async fn provide(&self) -> Result<BillingClient, BillingError> {
        let settings = self.settings.clone().map_err(BillingError::Settings)?;
        tracing::info!(url = %settings.url, "connecting the billing client");
        BillingClient::new(&settings.url, settings.timeout)
    }

    async fn dispose(&self, client: &BillingClient) {
        client.close();
    }
}

impl Default for BillingApi {
    fn default() -> Self {
        BillingApi::new()
    }
}

impl BillingApi {
    /// With explicit settings (tests, or settings from elsewhere than the environment).
    pub fn with_settings(settings: BillingSettings) -> Self {
        BillingApi {
            settings: Ok(settings),
        }
    }
}

/// The `billing` provider: owns the breaker (built once with the app) and wraps the raw client
/// in it.
#[derive(Debug)]
pub struct Billing {
    breaker: CircuitBreaker,
}

#[provider(provides = "billing", needs = ["billingApi"])]
impl Billing {
    /// With the breaker the environment describes ([`BillingSettings::from_env`]; invalid
    /// settings fail `billingApi`, which this needs, so the defaults here are never used).
    pub fn new() -> Self {
        let settings = BillingSettings::from_env().unwrap_or_default();
        Billing {
            breaker: settings.breaker(),
        }
    }

    fn provide(&self, billing_api: Arc<BillingClient>) -> GuardedBilling {
        GuardedBilling {
            api: billing_api,
            breaker: self.breaker.clone(),
        }
    }
}

impl Default for Billing {
    fn default() -> Self {
        Billing::new()
    }
}

impl Billing {
    /// With a breaker of your own (tests: a fake clock, a short window).
    pub fn with_breaker(breaker: CircuitBreaker) -> Self {
        Billing { breaker }
    }
}

/// Billing behind the breaker: what handlers ask for. There is no way to reach the raw client
/// through it.
#[derive(Debug)]
pub struct GuardedBilling {
    api: Arc<BillingClient>,
    breaker: CircuitBreaker,
}

impl GuardedBilling {
    /// Charges through the breaker. While it is open this fails fast with 503 "billing is
    /// unavailable" and a `Retry-After`, without calling billing. A call that failed upstream
    /// (5xx, 408, 429, unreachable, timed out) is also 503 "billing is unavailable", without a
    /// `Retry-After`: to the client it is the same outage. A client error from billing (a
    /// 404: unknown account) is 422.
    pub async fn charge(&self, user_id: &str, amount: u64) -> Result<Charge, HttpError> {
        let classify = |result: &Result<Charge, BillingError>| match result {
            Ok(_) => Outcome::Success,
            Err(error) if error.is_upstream_failure() => Outcome::Failure,
            Err(_) => Outcome::Ignored,
        };
        self.breaker
            .call_classified(|| self.api.charge(user_id, amount), classify)
            .await
            .map_err(to_http_error)
    }

    /// The breaker, for state and counters.
    pub fn breaker(&self) -> &CircuitBreaker {
        &self.breaker
    }
}

/// Billing's health is its breaker's (`AppBuilder::health_check::<GuardedBilling>("billing")`).
impl green_tea_core::HealthCheck for GuardedBilling {
    fn check(&self) -> green_tea_core::Check {
        self.breaker.check()
    }
}

fn to_http_error(error: BreakerError<BillingError>) -> HttpError {
    match error {
        BreakerError::Open { retry_after } => {
            // Whole seconds, rounded up: "0" would invite an immediate retry.
            let seconds = retry_after.as_millis().div_ceil(1000).max(1);
            HttpError::unavailable("billing is unavailable")
                .with_header("retry-after", seconds.to_string())
        }
        BreakerError::Timeout(limit) => {
            tracing::warn!(?limit, "billing did not answer in time");
            HttpError::unavailable("billing is unavailable")
        }
        BreakerError::Inner(error) if error.is_upstream_failure() => {
            tracing::warn!(%error, "billing failed");
            HttpError::unavailable("billing is unavailable")
        }
        BreakerError::Inner(BillingError::Closed | BillingError::Settings(_)) => {
            HttpError::unavailable("the app is shutting down")
        }
        BreakerError::Inner(error) => {
            HttpError::new(422, format!("billing refused the charge: {error}"))
        }
    }
}
