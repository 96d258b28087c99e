use green_tea::prelude::*;

#[provider(provides = "billingUrl", discover = "no")]
fn billing_url() -> String {
    "http://127.0.0.1:3001".to_owned()
}

fn main() {}
