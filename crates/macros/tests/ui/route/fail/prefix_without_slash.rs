use green_tea::prelude::*;

struct Orders;

#[route("orders")]
impl Orders {
    #[get("/")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
