use green_tea::prelude::*;
use http::HeaderMap;

#[step]
fn tag(parts: &mut Parts, headers: &HeaderMap) {
    let _ = (parts, headers);
}

fn main() {}
