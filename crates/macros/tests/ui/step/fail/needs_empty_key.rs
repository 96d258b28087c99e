use green_tea::prelude::*;

#[step(provides = "user", needs = "sessions::")]
fn user(sessions: &String) -> String {
    sessions.clone()
}

fn main() {}
