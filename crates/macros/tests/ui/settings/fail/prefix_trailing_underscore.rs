use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING_")]
struct BillingSettings {
    url: String,
}

fn main() {}
