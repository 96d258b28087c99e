use green_tea::prelude::*;

#[step(provides = "user", needs = "defaultUser?")]
fn user(parts: &Parts, default: Arc<String>) -> String {
    let _ = parts;
    (*default).clone()
}

fn main() {}
