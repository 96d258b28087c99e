use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(rename = "RETRIES")]
    retry_count: u32,
}

fn main() {}
