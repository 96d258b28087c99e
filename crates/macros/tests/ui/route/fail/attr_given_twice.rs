use green_tea::prelude::*;

struct Orders;

#[route("/orders", steps = ["auth"], steps = ["audit"])]
impl Orders {
    #[get("/")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
