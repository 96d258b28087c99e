use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("currency?")] currency: &String) -> String {
        currency.clone()
    }
}

fn main() {}
