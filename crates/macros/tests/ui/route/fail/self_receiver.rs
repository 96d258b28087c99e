use green_tea::prelude::*;

struct Orders {
    count: u32,
}

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(&self) -> String {
        self.count.to_string()
    }
}

fn main() {}
