use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings")]
struct BillingSettings {
    url: String,
}

fn main() {}
