use green_tea::prelude::*;

struct Orders;

#[route("/orders", steps = [require_admin])]
impl Orders {
    #[get("/")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
