use green_tea::prelude::*;

struct User;

#[step(provides = "user", when = "cacheOn")]
fn auth() -> User {
    User
}

fn main() {}
