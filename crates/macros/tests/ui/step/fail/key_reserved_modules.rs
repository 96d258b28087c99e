use green_tea::prelude::*;

#[step(provides = "user", needs = "sessions::store")]
fn user(sessions: &String) -> String {
    sessions.clone()
}

fn main() {}
