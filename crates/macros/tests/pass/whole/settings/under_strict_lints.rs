//! The expansion is clean under the workspace's strictest lints, in a public type of a
//! documented crate.
#![deny(missing_docs, missing_debug_implementations, warnings)]
#![forbid(unsafe_code)]

use green_tea::prelude::*;

/// Settings.
#[derive(Settings, Debug)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
pub struct BillingSettings {
    /// The url.
    pub url: String,
    /// The breaker.
    #[settings(nested)]
    pub breaker: BreakerSettings,
}

/// Nested.
#[derive(Settings, Debug)]
pub struct BreakerSettings {
    /// The threshold.
    #[settings(default = "3")]
    pub threshold: u32,
}

#[test]
fn compiles_and_runs() {
    assert_eq!(BillingSettings::fields().len(), 2);
}
