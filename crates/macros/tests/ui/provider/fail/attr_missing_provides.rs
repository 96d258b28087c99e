use green_tea::prelude::*;

#[provider(needs = "billingUrl")]
fn billing(url: &String) -> usize {
    url.len()
}

fn main() {}
