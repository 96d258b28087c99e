use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "billing")]
struct BillingSettings {
    url: String,
}

fn main() {}
