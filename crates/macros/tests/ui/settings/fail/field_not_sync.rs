use std::cell::Cell;

use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    retries: Cell<u32>,
}

fn main() {}
