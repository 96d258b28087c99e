use green_tea::prelude::*;

struct Ledger;

#[get("/orders")]
async fn list(#[needs("ledger")] ledger: &Ledger) -> &'static str {
    let _ = ledger;
    "[]"
}

fn main() {}
