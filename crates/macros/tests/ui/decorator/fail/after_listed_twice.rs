use green_tea::prelude::*;

#[decorator(decorates = "payments", after = ["retrying", "retrying"])]
fn metered(payments: &String) -> String {
    format!("metered({payments})")
}

fn main() {}
