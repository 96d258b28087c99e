use green_tea::prelude::*;

#[provider(provides = "billing", after = "email")]
fn billing() -> String {
    "billing".to_owned()
}

fn main() {}
