use green_tea::prelude::*;

#[provider(provides = [])]
fn billing() -> u32 {
    1
}

fn main() {}
