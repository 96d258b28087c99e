use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list<T: Default + ToString>() -> String {
        T::default().to_string()
    }
}

fn main() {}
