use green_tea::prelude::*;

#[provider(provides = "notifiers[]", after = ["email", "push", "email"])]
fn sms() -> String {
    "sms".to_owned()
}

fn main() {}
