use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/", body.limit = 1024)]
    async fn create(#[body] order: String) -> String {
        order
    }
}

fn main() {}
