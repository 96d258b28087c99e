use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "")]
struct BillingSettings {
    url: String,
}

fn main() {}
