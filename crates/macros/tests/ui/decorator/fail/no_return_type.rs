use green_tea::prelude::*;

#[decorator(decorates = "billing")]
fn logged(billing: &String) {
    let _ = billing;
}

fn main() {}
