use green_tea::prelude::*;

#[step(needs = "sessions", needs = "clock")]
fn check(sessions: &String) {
    let _ = sessions;
}

fn main() {}
