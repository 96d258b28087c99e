use green_tea::prelude::*;

struct NotAnError;

#[provider(provides = "count")]
fn count() -> Result<u32, NotAnError> {
    Ok(1)
}

fn main() {}
