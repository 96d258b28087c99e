use green_tea::prelude::*;

trait Shape {}

#[route("/shapes")]
impl dyn Shape {
    #[get("/")]
    async fn list() -> &'static str {
        "[]"
    }
}

fn main() {}
