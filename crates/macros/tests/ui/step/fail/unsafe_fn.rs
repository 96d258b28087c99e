use green_tea::prelude::*;

#[step(provides = "count")]
unsafe fn count() -> u32 {
    1
}

fn main() {}
