use green_tea::prelude::*;

#[decorator(decorates = "billing")]
fn logged(billing: &String) -> usize {
    billing.len()
}

fn main() {}
