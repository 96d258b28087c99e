//! `provides` without `prefix`: a settings type that only modules register, whose names give it
//! its prefix.
use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "paymentSettings", discover = false)]
struct PaymentSettings {
    url: String,
}

fn main() {
    assert_eq!(PaymentSettings::PREFIX, "");
    let _ = Module::new("orders").provider(PaymentSettings::provider());
}
