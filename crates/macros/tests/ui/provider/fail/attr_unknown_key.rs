use green_tea::prelude::*;

#[provider(provide = "billing")]
fn billing() -> u32 {
    1
}

fn main() {}
