use green_tea::prelude::*;

#[step]
fn check(rule: fn(&Parts) -> bool) {
    let _ = rule;
}

fn main() {}
