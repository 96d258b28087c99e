//! The `payments` module, written as a library ships one and mounted once per region
//! (`payments_eu`, `payments_us`), each with its own upstream (the module fn's argument), its
//! own circuit breaker, its own counts and its own `GET .../stats`.
//!
//! Private: `upstream`, `gateway` (the raw client of the upstream), `breaker` and `stats`.
//! Exported: `payments`, the gateway behind the breaker, which two decorators wrap (retries,
//! then a count of charges) without its provider knowing.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use green_tea::prelude::*;
use green_tea_recipes::circuit_breaker::{BreakerError, CircuitBreaker, Config, Outcome};
use serde_json::{Value, json};

#[derive(Debug)]
pub(crate) enum PaymentError {
    /// Worth another try.
    Transient,
    /// The gateway's breaker is open: not tried, try again after this long.
    Unavailable(Duration),
    /// Not worth another try.
    Declined(String),
}

/// A charge in flight: the charge's id, once it went through.
pub(crate) type Charging<'a> =
    Pin<Box<dyn Future<Output = Result<String, PaymentError>> + Send + 'a>>;

/// What the orders charge through.
pub(crate) trait Payments: Send + Sync {
    /// Charges `cents` to `user`.
    fn charge<'a>(&'a self, user: &'a str, cents: u64) -> Charging<'a>;
}

/// The upstream a registration of the module calls: its one setting.
pub(crate) struct Upstream(String);

/// The payment gateway, faked: every third charge fails once, as a flaky network would;
/// charges over 10,000 cents are declined. A charge's id is its URL at the upstream.
struct FakeGateway {
    upstream: String,
    calls: AtomicU64,
}

impl Payments for FakeGateway {
    fn charge<'a>(&'a self, user: &'a str, cents: u64) -> Charging<'a> {
        Box::pin(async move {
            let call = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
            if cents > 10_000 {
                return Err(PaymentError::Declined(format!(
                    "{cents} cents is over the limit"
                )));
            }
            if call.is_multiple_of(3) {
                return Err(PaymentError::Transient);
            }
            Ok(format!("{}/charges/ch_{call}_{user}", self.upstream))
        })
    }
}

#[provider(provides = "gateway", needs = ["upstream"])]
fn gateway(upstream: &Upstream) -> Arc<dyn Payments> {
    Arc::new(FakeGateway {
        upstream: upstream.0.clone(),
        calls: AtomicU64::new(0),
    })
}

/// The gateway behind the module's breaker: a transient failure counts toward opening it, a
/// decline does not (it says nothing about the upstream's health); while it is open, charges
/// fail fast without calling the gateway.
struct Guarded {
    gateway: Arc<dyn Payments>,
    breaker: CircuitBreaker,
}

impl Payments for Guarded {
    fn charge<'a>(&'a self, user: &'a str, cents: u64) -> Charging<'a> {
        Box::pin(async move {
            let classify = |outcome: &Result<String, PaymentError>| match outcome {
                Ok(_) => Outcome::Success,
                Err(PaymentError::Declined(_)) => Outcome::Ignored,
                Err(_) => Outcome::Failure,
            };
            let charge = || self.gateway.charge(user, cents);
            match self.breaker.call_classified(charge, classify).await {
                Ok(id) => Ok(id),
                Err(BreakerError::Inner(error)) => Err(error),
                Err(BreakerError::Open { retry_after }) => {
                    Err(PaymentError::Unavailable(retry_after))
                }
                Err(BreakerError::Timeout(_)) => Err(PaymentError::Transient),
            }
        })
    }
}

/// Nothing reaches the gateway around the breaker: `gateway` is private, and `payments`, what
/// the module exports, is the guarded one.
#[provider(provides = "payments", needs = ["gateway", "breaker"])]
fn guarded(gateway: &Arc<dyn Payments>, breaker: &CircuitBreaker) -> Arc<dyn Payments> {
    Arc::new(Guarded {
        gateway: Arc::clone(gateway),
        breaker: breaker.clone(),
    })
}

/// Tries a transient failure again, up to three times in all; an open breaker is not retried.
struct Retrying(Arc<dyn Payments>);

impl Payments for Retrying {
    fn charge<'a>(&'a self, user: &'a str, cents: u64) -> Charging<'a> {
        Box::pin(async move {
            let mut tries = 1;
            loop {
                match self.0.charge(user, cents).await {
                    Err(PaymentError::Transient) if tries < 3 => tries += 1,
                    outcome => return outcome,
                }
            }
        })
    }
}

#[decorator(decorates = "payments")]
fn retrying(inner: &Arc<dyn Payments>) -> Arc<dyn Payments> {
    Arc::new(Retrying(Arc::clone(inner)))
}

/// How many charges the orders asked for, and how many went through.
#[derive(Default)]
pub(crate) struct PaymentStats {
    asked: AtomicU64,
    charged: AtomicU64,
}

#[provider(provides = "stats")]
fn stats() -> PaymentStats {
    PaymentStats::default()
}

/// Counts each charge: outside `retrying` (`after` it), so it counts what the orders asked
/// for, not the gateway's tries.
struct Counted(Arc<dyn Payments>, Arc<PaymentStats>);

impl Payments for Counted {
    fn charge<'a>(&'a self, user: &'a str, cents: u64) -> Charging<'a> {
        Box::pin(async move {
            self.1.asked.fetch_add(1, Ordering::Relaxed);
            let outcome = self.0.charge(user, cents).await;
            if outcome.is_ok() {
                self.1.charged.fetch_add(1, Ordering::Relaxed);
            }
            outcome
        })
    }
}

#[decorator(decorates = "payments", needs = ["stats"], after = "retrying")]
fn counted(inner: &Arc<dyn Payments>, stats: Arc<PaymentStats>) -> Arc<dyn Payments> {
    Arc::new(Counted(Arc::clone(inner), stats))
}

pub(crate) struct PaymentsApi;

#[route("/")]
impl PaymentsApi {
    /// This registration's counts and its breaker's state.
    #[get("/stats")]
    async fn stats(
        #[needs("stats")] stats: &PaymentStats,
        #[needs("breaker")] breaker: &CircuitBreaker,
    ) -> Json<Value> {
        Json(json!({
            "asked": stats.asked.load(Ordering::Relaxed),
            "charged": stats.charged.load(Ordering::Relaxed),
            "breaker": breaker.state().to_string(),
        }))
    }
}

/// The payments module over `upstream` (`https://pay-eu.example`): register it once per
/// gateway, each under a name and a prefix of its own
/// (`module(url).named("payments_eu").prefix("/payments/eu")`). Its breaker opens after three
/// failures in a row and tries again after 30 seconds.
pub(crate) fn module(upstream: &str) -> Module {
    let breaker = CircuitBreaker::new(Config::new(3, Duration::from_secs(30)).name(upstream));
    Module::new("payments")
        .discover_in(&[module_path!()])
        .value("upstream", Upstream(upstream.to_owned()))
        .value("breaker", breaker)
        .export("payments")
}
