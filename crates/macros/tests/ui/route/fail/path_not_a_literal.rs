use green_tea::prelude::*;

struct Orders;

const LIST: &str = "/";

#[route("/orders")]
impl Orders {
    #[get(LIST)]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
