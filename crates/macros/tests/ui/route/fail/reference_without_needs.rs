use green_tea::prelude::*;

struct Orders;
struct Ledger;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(ledger: &Ledger) -> &'static str {
        let _ = ledger;
        "[]"
    }
}

fn main() {}
