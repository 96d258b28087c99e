use green_tea::prelude::*;

#[step(provides = "stores{eu}")]
fn store() -> String {
    "eu.example".to_owned()
}

fn main() {}
