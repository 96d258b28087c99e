use green_tea::prelude::*;

#[provider(provides = ["billing", "billing"])]
fn billing() -> (u32, u32) {
    (1, 2)
}

fn main() {}
