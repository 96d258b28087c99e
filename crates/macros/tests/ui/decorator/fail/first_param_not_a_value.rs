use green_tea::prelude::*;

#[decorator(decorates = "billing")]
fn logged(billing: String) -> String {
    billing
}

fn main() {}
