use green_tea::prelude::*;

#[provider(provides = "billing", needs = "cache?")]
fn billing(cache: Option<String>) -> usize {
    cache.map_or(0, |c| c.len())
}

fn main() {}
