use green_tea::prelude::*;

struct Orders;

#[route(steps = ["auth"])]
impl Orders {
    #[get("/")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
