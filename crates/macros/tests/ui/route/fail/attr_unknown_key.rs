use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[delete("/{id}", guards = ["require_admin"])]
    async fn remove(Path(id): Path<u64>) -> String {
        id.to_string()
    }
}

fn main() {}
