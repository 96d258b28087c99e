use green_tea::prelude::*;

#[provider(provides = "billing", needs = ["billingUrl", "billingToken"])]
fn billing(url: &String) -> usize {
    url.len()
}

fn main() {}
