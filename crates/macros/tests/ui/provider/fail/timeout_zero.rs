use green_tea::prelude::*;

#[provider(provides = "pool", timeout = "0ms")]
fn pool() -> u32 {
    7
}

fn main() {}
