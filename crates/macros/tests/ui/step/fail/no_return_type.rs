use green_tea::prelude::*;

#[step(provides = "user")]
async fn auth(parts: &Parts) {
    let _ = parts;
}

fn main() {}
