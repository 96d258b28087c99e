use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("stores")] stores: ByName<'_, String>) -> String {
        stores.len().to_string()
    }
}

fn main() {}
