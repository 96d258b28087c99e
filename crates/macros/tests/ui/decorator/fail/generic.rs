use green_tea::prelude::*;

#[decorator(decorates = "billing")]
fn logged<T: Clone>(billing: &T) -> T {
    billing.clone()
}

fn main() {}
