use green_tea::prelude::*;

#[derive(Settings)]
#[settings(prefix = "BILLING")]
struct BillingSettings {
    url: String,
}

fn main() {}
