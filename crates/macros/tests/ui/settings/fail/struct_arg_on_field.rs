use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(prefix = "URL")]
    url: String,
}

fn main() {}
