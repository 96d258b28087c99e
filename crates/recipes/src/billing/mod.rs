//! Billing: a real HTTP client of the billing service, and the two providers of the reference
//! guide: `billingApi` (the raw client, closed on dispose) and `billing` (the client behind a
//! circuit breaker that lives on the provider).

mod client;
mod error;
pub mod fake;
mod providers;

pub use client::{BillingClient, Charge, ChargeRequest};
pub use error::BillingError;
pub use providers::{Billing, BillingApi, BillingSettings, GuardedBilling};
