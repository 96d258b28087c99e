use green_tea::prelude::*;

#[step(provides = ["user", "role", "tenant"])]
fn auth(parts: &Parts) -> (String, String) {
    let _ = parts;
    ("ada".to_owned(), "admin".to_owned())
}

fn main() {}
