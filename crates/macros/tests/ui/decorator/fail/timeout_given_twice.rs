use green_tea::prelude::*;

#[decorator(decorates = "billing", timeout = "5s", timeout = "10s")]
fn audited(billing: &String) -> String {
    billing.clone()
}

fn main() {}
