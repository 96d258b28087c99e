use green_tea::prelude::*;

// One mistake is reported once: the type's uses still compile against the stand-in impl.
#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "billing")]
struct BillingSettings {
    url: String,
}

fn main() {
    let _ = App::builder().provider(BillingSettings::provider());
}
