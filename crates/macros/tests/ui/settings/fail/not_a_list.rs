use green_tea::prelude::*;

#[derive(Settings)]
#[settings]
struct BillingSettings {
    url: String,
}

fn main() {}
