use green_tea::prelude::*;

#[decorator(decorates = "stores{}")]
fn logged(store: &String) -> String {
    store.clone()
}

fn main() {}
