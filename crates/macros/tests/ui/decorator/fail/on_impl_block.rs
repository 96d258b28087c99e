use green_tea::prelude::*;

struct Logged;

#[decorator(decorates = "billing")]
impl Logged {
    fn provide(&self, billing: &String) -> String {
        billing.clone()
    }
}

fn main() {}
