use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/", "/all")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
