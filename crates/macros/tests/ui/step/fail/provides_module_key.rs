use green_tea::prelude::*;

#[step(provides = "sessions::user", needs = "sessions::store")]
fn user(sessions: &String) -> String {
    sessions.clone()
}

fn main() {}
