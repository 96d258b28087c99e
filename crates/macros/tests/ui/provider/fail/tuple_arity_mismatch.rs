use green_tea::prelude::*;

#[provider(provides = ["host", "port", "scheme"])]
fn address() -> (String, u16) {
    ("localhost".to_owned(), 80)
}

fn main() {}
