use green_tea::prelude::*;

#[step(provides = "user?")]
fn user() -> String {
    "ada".to_owned()
}

fn main() {}
