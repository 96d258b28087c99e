use green_tea::prelude::*;

#[decorator(decorates = "stores{eu}")]
fn logged(store: &String) -> String {
    store.clone()
}

fn main() {}
