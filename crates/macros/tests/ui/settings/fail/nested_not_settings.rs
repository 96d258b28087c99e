use green_tea::prelude::*;

#[derive(serde::Deserialize)]
struct BreakerSettings {
    threshold: u32,
}

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(nested)]
    breaker: BreakerSettings,
}

fn main() {}
