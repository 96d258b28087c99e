//! The reference guide's two providers, over the settings `billingSettings`: `billingApi` holds
//! the raw client and closes it on dispose; `billing` wraps it in a circuit breaker that lives
//! on the provider, so handlers can reach billing only through the breaker.

use std::sync::{Arc, Mutex, PoisonError};

use green_tea_core::provider;
use green_tea_http::HttpError;

use super::client::{BillingClient, Charge};
use super::error::BillingError;
use super::settings::{BillingSettings, BreakerSettings};
use crate::circuit_breaker::{BreakerError, CircuitBreaker, Outcome};

/// The `billingApi` provider: the raw client of `billingSettings`' URL, each call bounded by
/// its timeout. Its `dispose` closes the very client it handed out.
#[derive(Debug, Default)]
pub struct BillingApi;

#[provider(provides = "billingApi", needs = ["billingSettings"])]
impl BillingApi {
    /// The provider; the settings come from the graph (`BillingSettings::provider()`).
    pub fn new() -> Self {
        BillingApi
    }

    async fn provide(&self, settings: &BillingSettings) -> Result<BillingClient, BillingError> {
        let url = settings.url.as_deref().ok_or(BillingError::NoUrl)?;
        tracing::info!(url, "connecting the billing client");
        BillingClient::new(url, settings.timeout)
    }

    async fn dispose(&self, client: &BillingClient) {
        client.close();
    }
}

/// The `billing` provider: owns the breaker (made from `billingSettings` when billing is first
/// needed) and wraps the raw client in it. A build after a reload keeps the breaker, with its
/// state, unless the breaker's settings changed: then it makes a new one, closed, from them (a
/// breaker's counts are not carried over to a new threshold).
#[derive(Debug, Default)]
pub struct Billing {
    breaker: Mutex<Option<Kept>>,
}

/// The breaker a [`Billing`] keeps, and the settings it was made from (`None`: given, by
/// [`Billing::with_breaker`], and kept whatever the settings say).
#[derive(Debug)]
struct Kept {
    made_from: Option<(BreakerSettings, std::time::Duration)>,
    breaker: CircuitBreaker,
}

#[provider(provides = "billing", needs = ["billingApi", "billingSettings"])]
impl Billing {
    /// With the breaker the settings describe ([`BillingSettings::breaker`]).
    pub fn new() -> Self {
        Billing::default()
    }

    fn provide(
        &self,
        billing_api: Arc<BillingClient>,
        settings: &BillingSettings,
    ) -> GuardedBilling {
        let mut kept = self.breaker.lock().unwrap_or_else(PoisonError::into_inner);
        let wanted = (settings.breaker.clone(), settings.timeout);
        let current = kept
            .as_ref()
            .is_some_and(|k| k.made_from.as_ref().is_none_or(|made| *made == wanted));
        if !current {
            if kept.is_some() {
                tracing::info!(
                    threshold = settings.breaker.threshold,
                    reset = ?settings.breaker.reset,
                    "billing's breaker settings changed: a new breaker, closed"
                );
            }
            *kept = Some(Kept {
                made_from: Some(wanted),
                breaker: settings.breaker(),
            });
        }
        let breaker = kept.as_ref().map(|k| k.breaker.clone());
        GuardedBilling::new(billing_api, breaker.unwrap_or_else(|| settings.breaker()))
    }
}

impl Billing {
    /// With a breaker of your own instead (tests: a fake clock, a short window), kept whatever
    /// the settings say.
    pub fn with_breaker(breaker: CircuitBreaker) -> Self {
        Billing {
            breaker: Mutex::new(Some(Kept {
                made_from: None,
                breaker,
            })),
        }
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
    /// `api` behind `breaker`: what [`Billing`] provides, for a provider of `billing` of your
    /// own (one whose breaker is shared through Redis, made asynchronously).
    pub fn new(api: Arc<BillingClient>, breaker: CircuitBreaker) -> Self {
        GuardedBilling { api, breaker }
    }

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
        BreakerError::Inner(BillingError::Closed) => {
            HttpError::unavailable("the app is shutting down")
        }
        BreakerError::Inner(error) => {
            HttpError::new(422, format!("billing refused the charge: {error}"))
        }
    }
}
