use green_tea::prelude::*;

#[provider(provides = "billing", needs = "billingUrl")]
fn billing(url: String) -> usize {
    url.len()
}

fn main() {}
