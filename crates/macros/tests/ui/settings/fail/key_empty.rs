use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "", prefix = "BILLING")]
struct BillingSettings {
    url: String,
}

fn main() {}
