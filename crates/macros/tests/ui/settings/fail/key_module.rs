use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billing::settings", prefix = "BILLING")]
struct BillingSettings {
    url: String,
}

fn main() {}
