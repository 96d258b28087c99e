use green_tea::prelude::*;

#[provider(provides = "payments", when = "gateway =")]
fn payments() -> String {
    "stripe".to_owned()
}

fn main() {}
