use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING", validate = check)]
struct BillingSettings {
    url: String,
}

fn check(settings: &BillingSettings) -> bool {
    settings.url.starts_with("http")
}

fn main() {}
