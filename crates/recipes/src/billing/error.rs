//! What can go wrong calling the billing service.

use std::time::Duration;

/// A failed billing call.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BillingError {
    /// The client was closed (the app is shutting down).
    #[error("the billing client is closed")]
    Closed,
    /// No billing URL is set (`BILLING_URL`, or `[billing] url`): there is no service to call.
    #[error("no billing URL is set: set BILLING_URL (or `url` in the settings file's `[billing]`)")]
    NoUrl,
    /// `BILLING_URL` is not a usable `http://` URL.
    #[error("invalid billing URL `{url}`: {reason}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Could not reach the service (refused, reset, DNS...).
    #[error("could not reach billing: {0}")]
    Connect(String),
    /// No response within the client's timeout.
    #[error("billing did not answer within {0:?}")]
    Timeout(Duration),
    /// The service answered with an error status.
    #[error("billing answered {status}: {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The response body (truncated).
        body: String,
    },
    /// The service answered 2xx with a body that is not a charge.
    #[error("billing sent an unexpected body: {0}")]
    Decode(String),
}

impl BillingError {
    /// Whether this says the upstream is unhealthy (a breaker failure): connection errors,
    /// timeouts, 5xx, 408 and 429. Other 4xx are the caller's problem and say nothing about
    /// the upstream's health.
    pub fn is_upstream_failure(&self) -> bool {
        match self {
            BillingError::Connect(_) | BillingError::Timeout(_) => true,
            BillingError::Status { status, .. } => {
                *status >= 500 || *status == 408 || *status == 429
            }
            BillingError::Closed
            | BillingError::NoUrl
            | BillingError::InvalidUrl { .. }
            | BillingError::Decode(_) => false,
        }
    }
}
