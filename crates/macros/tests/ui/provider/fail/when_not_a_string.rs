use green_tea::prelude::*;

#[provider(provides = "cache", when = 3)]
fn cache() -> String {
    "memory".to_owned()
}

fn main() {}
