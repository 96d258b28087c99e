use green_tea::prelude::*;

#[derive(Settings)]
struct BreakerSettings {
    threshold: u32,
}

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(nested)]
    breaker: Option<BreakerSettings>,
}

fn main() {}
