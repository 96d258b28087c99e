use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(default = " ")]
    region: String,
}

fn main() {}
