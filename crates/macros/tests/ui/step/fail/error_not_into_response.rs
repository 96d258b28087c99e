use green_tea::prelude::*;

struct User;
struct NotAResponse;

#[step(provides = "user")]
fn auth(parts: &Parts) -> Result<User, NotAResponse> {
    let _ = parts;
    Ok(User)
}

fn main() {}
