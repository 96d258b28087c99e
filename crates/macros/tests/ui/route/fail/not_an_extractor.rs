use green_tea::prelude::*;

struct Orders;
struct Token(String);

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(token: Token) -> String {
        token.0
    }
}

fn main() {}
