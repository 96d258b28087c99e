use green_tea::prelude::*;

#[decorator(provides = "billing")]
fn logged(billing: &String) -> String {
    billing.clone()
}

fn main() {}
