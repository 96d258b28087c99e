use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING", discover = "no")]
struct BillingSettings {
    url: String,
}

fn main() {}
