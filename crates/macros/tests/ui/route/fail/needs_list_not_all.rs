use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("notifiers[]")] notifiers: &String) -> String {
        notifiers.clone()
    }
}

fn main() {}
