use green_tea::prelude::*;

#[derive(Default)]
struct Billing;

#[provider(provides = ["billing", "stores{eu}"], after = ["Audit"])]
impl Billing {
    fn provide(&self) -> (String, String) {
        ("billing".to_owned(), "eu.example".to_owned())
    }
}

fn main() {}
