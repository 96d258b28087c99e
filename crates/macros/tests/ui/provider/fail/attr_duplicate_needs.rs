use green_tea::prelude::*;

#[provider(provides = "billing", needs = ["billingUrl", "billingUrl"])]
fn billing(url: &String, again: &String) -> usize {
    url.len() + again.len()
}

fn main() {}
