use green_tea::prelude::*;

#[step(provides = "greeting")]
fn greeting() -> impl std::fmt::Display {
    "hello"
}

fn main() {}
