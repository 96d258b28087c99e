use axum::Json;
use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/")]
    async fn create(#[body] note: String, Json(order): Json<u64>) -> String {
        format!("{note} {order}")
    }
}

fn main() {}
