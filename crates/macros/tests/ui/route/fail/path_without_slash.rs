use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("{id}")]
    async fn show(Path(id): Path<u64>) -> String {
        id.to_string()
    }
}

fn main() {}
