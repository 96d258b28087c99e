use green_tea::prelude::*;

struct User;

#[step(provides)]
fn auth() -> User {
    User
}

fn main() {}
