use green_tea::prelude::*;

struct Orders<T>(T);

#[route("/orders")]
impl<T> Orders<T> {
    #[get("/")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
