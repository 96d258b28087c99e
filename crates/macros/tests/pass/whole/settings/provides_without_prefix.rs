//! `provides` without `prefix`: a settings type that only modules register, whose names give it
//! its prefix.
use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "paymentSettings", discover = false)]
struct PaymentSettings {
    url: String,
}

#[test]
fn compiles_and_runs() {
    assert_eq!(PaymentSettings::PREFIX, "");
    let _ = Module::new("orders").provider(PaymentSettings::provider());
    let settings = PaymentSettings {
        url: "http://127.0.0.1:3001".to_owned(),
    };
    assert!(settings.url.starts_with("http://"));
}
