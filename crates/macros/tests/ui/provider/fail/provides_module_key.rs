use green_tea::prelude::*;

#[provider(provides = "billing::client")]
fn billing() -> usize {
    1
}

fn main() {}
