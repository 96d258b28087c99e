use green_tea::prelude::*;

struct Orders;
struct Order;

#[route("/orders")]
impl Orders {
    #[post("/")]
    async fn create(#[body] order: Order) -> &'static str {
        let _ = order;
        "created"
    }
}

fn main() {}
