use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("notifiers")] notifiers: All<'_, String>) -> String {
        notifiers.len().to_string()
    }
}

fn main() {}
