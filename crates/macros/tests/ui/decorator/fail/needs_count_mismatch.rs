use green_tea::prelude::*;

#[decorator(decorates = "billing", needs = ["clock", "audit"])]
fn logged(billing: &String, clock: &u64) -> String {
    format!("{billing} at {clock}")
}

fn main() {}
