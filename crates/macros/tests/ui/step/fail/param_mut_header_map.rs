use green_tea::prelude::*;
use http::HeaderMap;

#[step]
fn tag(headers: &mut HeaderMap) {
    headers.clear();
}

fn main() {}
