use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/")]
    async fn create(#[body] order: String, #[body] again: String) -> String {
        order + &again
    }
}

fn main() {}
