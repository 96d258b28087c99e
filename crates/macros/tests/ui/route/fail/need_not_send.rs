use std::cell::Cell;

use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn count(#[needs("count")] count: &Cell<u32>) -> String {
        count.get().to_string()
    }
}

fn main() {}
