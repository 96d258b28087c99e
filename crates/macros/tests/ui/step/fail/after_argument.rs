use green_tea::prelude::*;

struct User;

#[step(provides = "user", after = "session")]
fn auth() -> User {
    User
}

fn main() {}
