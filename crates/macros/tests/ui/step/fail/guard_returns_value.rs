use green_tea::prelude::*;

struct User;

#[step]
fn auth(parts: &Parts) -> Result<User, HttpError> {
    let _ = parts;
    Ok(User)
}

fn main() {}
