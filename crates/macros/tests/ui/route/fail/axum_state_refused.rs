use axum::extract::State;
use green_tea::prelude::*;

#[derive(Clone)]
struct AppState;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(State(_state): State<AppState>) -> &'static str {
        "orders"
    }
}

fn main() {}
