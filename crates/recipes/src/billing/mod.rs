//! Billing: a real HTTP client of the billing service, its settings (`billingSettings`, the
//! `BILLING_*` variables), and the two providers of the reference guide: `billingApi` (the raw
//! client, closed on dispose) and `billing` (the client behind a circuit breaker that lives on
//! the provider).

mod client;
mod error;
pub mod fake;
mod providers;
mod settings;

pub use client::{BillingClient, Charge, ChargeRequest};
pub use error::BillingError;
pub use providers::{Billing, BillingApi, GuardedBilling};
pub use settings::{BillingSettings, BreakerSettings};
