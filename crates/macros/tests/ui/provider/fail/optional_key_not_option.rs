use green_tea::prelude::*;

struct Cache;

#[provider(provides = "billing", needs = "cache?")]
fn billing(cache: &Cache) -> usize {
    let _ = cache;
    1
}

fn main() {}
