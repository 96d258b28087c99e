use green_tea::prelude::*;

#[decorator(needs = "clock")]
fn logged(billing: &String, clock: &u64) -> String {
    format!("{billing} at {clock}")
}

fn main() {}
