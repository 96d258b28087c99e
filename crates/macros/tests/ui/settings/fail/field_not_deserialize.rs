use green_tea::prelude::*;

struct Url(String);

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    url: Url,
}

fn main() {}
