use green_tea::prelude::*;

struct Orders;
struct Listing;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list() -> Listing {
        Listing
    }
}

fn main() {}
