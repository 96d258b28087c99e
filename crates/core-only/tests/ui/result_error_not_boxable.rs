use green_tea_core::provider;

struct NotAnError;

#[provider(provides = "count")]
fn count() -> Result<u32, NotAnError> {
    Ok(1)
}

fn main() {}
