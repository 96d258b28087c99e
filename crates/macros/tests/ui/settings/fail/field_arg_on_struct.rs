use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING", default = "2s")]
struct BillingSettings {
    url: String,
}

fn main() {}
