use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("ledger")] ledger: String) -> String {
        ledger
    }
}

fn main() {}
