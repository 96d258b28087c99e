//! Through green-tea-core alone, as a crate that only adds providers writes it: the one name
//! `Settings` is the trait and the derive.

use std::time::Duration;

use green_tea_core::settings::Secret;
use green_tea_core::{Container, Settings};

#[derive(Settings, Debug)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
pub struct BillingSettings {
    pub url: String,
    #[settings(default = "2s")]
    pub timeout: Duration,
    pub token: Secret<String>,
    pub region: Option<String>,
    #[settings(nested)]
    pub breaker: BreakerSettings,
}

#[derive(Settings, Debug)]
pub struct BreakerSettings {
    #[settings(default = "3")]
    pub threshold: u32,
    #[settings(default = "30s")]
    pub reset: Duration,
}

#[test]
fn compiles_and_runs() {
    assert_eq!(BillingSettings::PREFIX, "BILLING");
    let _ = Container::builder().provider(BillingSettings::provider());
}
