use std::cell::Cell;

use green_tea::prelude::*;

#[provider(provides = "double", needs = "count")]
async fn double(count: &Cell<u32>) -> u32 {
    count.get() * 2
}

fn main() {}
