use green_tea::prelude::*;

#[provider(provides = "notifiers[]", after = ["email", ""])]
fn sms() -> String {
    "sms".to_owned()
}

fn main() {}
