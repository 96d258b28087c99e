use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("currency")] currency: Option<&String>) -> String {
        currency.cloned().unwrap_or_default()
    }
}

fn main() {}
