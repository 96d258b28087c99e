use green_tea::prelude::*;

#[provider(provides = "billing", needs = "billing[url")]
fn billing(url: &String) -> usize {
    url.len()
}

fn main() {}
