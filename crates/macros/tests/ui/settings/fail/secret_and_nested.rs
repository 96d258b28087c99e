use green_tea::prelude::*;

#[derive(Settings)]
struct Credentials {
    token: String,
}

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(secret, nested)]
    credentials: Credentials,
}

fn main() {}
