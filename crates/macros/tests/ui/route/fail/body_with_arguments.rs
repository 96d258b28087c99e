use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/")]
    async fn create(#[body(json)] order: String) -> String {
        order
    }
}

fn main() {}
