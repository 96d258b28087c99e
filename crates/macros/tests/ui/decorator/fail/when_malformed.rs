use green_tea::prelude::*;

#[decorator(decorates = "billing", when = "!cache?")]
fn audited(billing: &String) -> String {
    billing.clone()
}

fn main() {}
