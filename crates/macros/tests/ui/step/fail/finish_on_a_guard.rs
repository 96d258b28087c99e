use green_tea::prelude::*;

#[step(needs = ["user"], finish)]
fn require_admin(user: &String) -> Result<(), HttpError> {
    let _ = user;
    Ok(())
}

fn main() {}
