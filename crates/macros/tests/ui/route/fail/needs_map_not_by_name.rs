use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("stores{}")] stores: All<'_, String>) -> String {
        stores.len().to_string()
    }
}

fn main() {}
