use axum::extract::MatchedPath;
use green_tea::prelude::*;

#[step]
fn log_route(path: MatchedPath) {
    let _ = path;
}

fn main() {}
