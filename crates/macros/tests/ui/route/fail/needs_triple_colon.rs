use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(#[needs("billing:::client")] client: &String) -> String {
        client.clone()
    }
}

fn main() {}
