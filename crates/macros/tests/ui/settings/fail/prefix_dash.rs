use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILL-ING")]
struct BillingSettings {
    url: String,
}

fn main() {}
