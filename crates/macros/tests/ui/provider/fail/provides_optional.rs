use green_tea::prelude::*;

#[provider(provides = "cache?")]
fn cache() -> usize {
    1
}

fn main() {}
