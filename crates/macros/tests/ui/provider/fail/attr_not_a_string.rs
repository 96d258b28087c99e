use green_tea::prelude::*;

#[provider(provides = billing)]
fn billing() -> u32 {
    1
}

fn main() {}
