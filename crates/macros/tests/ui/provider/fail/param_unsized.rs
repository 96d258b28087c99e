use green_tea::prelude::*;

#[provider(provides = "billing", needs = "billingUrl")]
fn billing(url: &str) -> usize {
    url.len()
}

fn main() {}
