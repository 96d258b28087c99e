use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
#[settings(prefix = "PAYMENTS")]
struct BillingSettings {
    url: String,
}

fn main() {}
