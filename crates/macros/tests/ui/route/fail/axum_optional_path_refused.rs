use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/{id}")]
    async fn show(id: Option<axum::extract::Path<u64>>, headers: green_tea::http::HeaderMap) -> String {
        format!("{} {}", id.is_some(), headers.len())
    }
}

fn main() {}
