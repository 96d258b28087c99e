use green_tea::prelude::*;

#[provider(provides = "pool", build_timeout = "5s")]
fn pool() -> u32 {
    7
}

fn main() {}
