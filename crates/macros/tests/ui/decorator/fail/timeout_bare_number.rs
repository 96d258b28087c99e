use green_tea::prelude::*;

#[decorator(decorates = "billing", timeout = "30")]
fn audited(billing: &String) -> String {
    billing.clone()
}

fn main() {}
