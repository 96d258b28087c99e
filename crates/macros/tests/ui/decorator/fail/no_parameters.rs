use green_tea::prelude::*;

#[decorator(decorates = "billing")]
fn logged() -> String {
    "billing".to_owned()
}

fn main() {}
