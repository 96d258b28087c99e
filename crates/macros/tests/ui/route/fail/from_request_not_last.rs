use axum::Json;
use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/{id}")]
    async fn create(Json(order): Json<u64>, Path(id): Path<u64>) -> String {
        format!("{id} {order}")
    }
}

fn main() {}
