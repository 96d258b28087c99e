use green_tea::prelude::*;

#[route("/orders")]
async fn list() -> &'static str {
    "[]"
}

fn main() {}
