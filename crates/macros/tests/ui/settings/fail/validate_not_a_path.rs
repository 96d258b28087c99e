use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING", validate = "check")]
struct BillingSettings {
    url: String,
}

fn main() {}
