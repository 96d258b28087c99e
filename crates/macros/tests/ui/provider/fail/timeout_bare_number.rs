use green_tea::prelude::*;

#[provider(provides = "pool", timeout = "5")]
async fn pool() -> u32 {
    7
}

fn main() {}
