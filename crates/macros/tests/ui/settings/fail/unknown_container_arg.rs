use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefx = "BILLING")]
struct BillingSettings {
    url: String,
}

fn main() {}
