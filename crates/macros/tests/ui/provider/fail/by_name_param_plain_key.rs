use green_tea::prelude::*;

#[provider(provides = "store", needs = "stores")]
fn store(stores: ByName<'_, String>) -> usize {
    stores.len()
}

fn main() {}
