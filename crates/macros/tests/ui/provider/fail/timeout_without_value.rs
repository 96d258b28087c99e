use green_tea::prelude::*;

#[provider(provides = "pool", timeout)]
fn pool() -> u32 {
    7
}

fn main() {}
