use green_tea::prelude::*;
use green_tea::settings::Secret;

#[derive(Settings)]
struct Credentials {
    token: String,
}

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING")]
struct BillingSettings {
    #[settings(nested)]
    credentials: Secret<Credentials>,
}

fn main() {}
