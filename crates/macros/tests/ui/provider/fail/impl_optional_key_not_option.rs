use green_tea::prelude::*;

#[derive(Default)]
struct Billing;

#[provider(provides = "billing", needs = "billingUrl?")]
impl Billing {
    fn provide(&self, url: &String) -> usize {
        url.len()
    }
}

fn main() {}
