use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(secret = true)]
    token: String,
}

fn main() {}
