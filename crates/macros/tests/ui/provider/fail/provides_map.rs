use green_tea::prelude::*;

#[provider(provides = "stores{}")]
fn stores() -> String {
    "eu.example".to_owned()
}

fn main() {}
