use axum::body::Bytes;
use green_tea::prelude::*;

#[step]
fn check_body(body: Bytes) {
    let _ = body;
}

fn main() {}
