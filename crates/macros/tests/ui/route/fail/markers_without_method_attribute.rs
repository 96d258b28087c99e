use green_tea::prelude::*;

struct Orders;
struct Ledger;

#[route("/orders")]
impl Orders {
    async fn list(#[needs("ledger")] ledger: &Ledger) -> &'static str {
        let _ = ledger;
        "[]"
    }
}

fn main() {}
