use green_tea::prelude::*;

struct User;

#[step(provide = "user")]
fn auth() -> User {
    User
}

fn main() {}
