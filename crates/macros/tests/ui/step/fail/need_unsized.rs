use green_tea::prelude::*;

#[step(provides = "greeting", needs = "name")]
fn greet(name: &str) -> String {
    format!("hello, {name}")
}

fn main() {}
