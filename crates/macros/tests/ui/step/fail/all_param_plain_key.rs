use green_tea::prelude::*;

#[step(needs = "auditors")]
fn audit(auditors: All<'_, String>) {
    let _ = auditors;
}

fn main() {}
