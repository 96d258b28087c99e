use green_tea::prelude::*;

struct User;
struct Sessions;

#[step(provides = "user", needs = ["sessions", "clock"])]
fn auth(parts: &Parts, sessions: &Sessions) -> User {
    let _ = (parts, sessions);
    User
}

fn main() {}
