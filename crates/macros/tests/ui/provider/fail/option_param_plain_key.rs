use green_tea::prelude::*;

struct Cache;

#[provider(provides = "billing", needs = "cache")]
fn billing(cache: Option<&Cache>) -> usize {
    usize::from(cache.is_some())
}

fn main() {}
