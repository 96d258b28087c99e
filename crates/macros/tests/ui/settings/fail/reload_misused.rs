use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING", reload = true)]
struct BillingSettings {
    #[settings(reload = "yes")]
    timeout: std::time::Duration,
    #[settings(reloadable)]
    retries: u32,
}

fn main() {}
