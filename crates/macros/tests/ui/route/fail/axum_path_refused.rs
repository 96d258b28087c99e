use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/{id}")]
    async fn show(axum::extract::Path(id): axum::extract::Path<u64>) -> String {
        id.to_string()
    }
}

fn main() {}
