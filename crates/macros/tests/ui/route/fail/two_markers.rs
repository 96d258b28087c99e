use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/")]
    async fn create(#[body] #[needs("ledger")] order: String) -> String {
        order
    }
}

fn main() {}
