use green_tea::prelude::*;

#[decorator(decorates = "billing", timeout = "0s")]
fn audited(billing: &String) -> String {
    billing.clone()
}

fn main() {}
