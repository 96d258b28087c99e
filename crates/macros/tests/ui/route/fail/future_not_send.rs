use std::rc::Rc;

use green_tea::prelude::*;

async fn tick() {}

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn count() -> String {
        let local = Rc::new(1);
        tick().await;
        local.to_string()
    }
}

fn main() {}
