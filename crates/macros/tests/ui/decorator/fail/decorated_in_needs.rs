use green_tea::prelude::*;

#[decorator(decorates = "billing", needs = "billing")]
fn logged(billing: &String, again: &String) -> String {
    format!("{billing}{again}")
}

fn main() {}
