use green_tea::prelude::*;

async fn close_count(value: &String) {
    let _ = value;
}

#[provider(provides = "count", dispose = close_count)]
fn count() -> u32 {
    1
}

fn main() {}
