use green_tea::prelude::*;

#[step(provides = "hooks[]")]
fn hook() -> String {
    "audit".to_owned()
}

fn main() {}
