//! The settings types of the design, as an application writes them: through the prelude.

use std::time::Duration;

use green_tea::prelude::*;
use green_tea::settings::Secret;

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
    assert_eq!(BillingSettings::KEY, "billingSettings");
    assert_eq!(BillingSettings::PREFIX, "BILLING");
    assert_eq!((BreakerSettings::KEY, BreakerSettings::PREFIX), ("", ""));
    let names: Vec<_> = BillingSettings::fields().iter().map(|f| f.name).collect();
    assert_eq!(names, ["url", "timeout", "token", "region", "breaker"]);
    let _ = App::builder().provider(BillingSettings::provider());
}
