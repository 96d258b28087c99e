use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
#[allow(non_snake_case)]
struct BillingSettings {
    retryCount: u32,
}

fn main() {}
