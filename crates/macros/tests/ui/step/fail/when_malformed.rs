use green_tea::prelude::*;

struct User;

#[step(provides = "user", when = ["sessionsOn", "cache On"])]
fn auth() -> User {
    User
}

fn main() {}
