use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    retries: u32,
    #[settings(rename = "retries")]
    retry_count: u32,
}

fn main() {}
