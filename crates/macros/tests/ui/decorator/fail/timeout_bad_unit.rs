use green_tea::prelude::*;

#[decorator(decorates = "billing", timeout = "5x")]
fn audited(billing: &String) -> String {
    billing.clone()
}

fn main() {}
