use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Default for Orders {
    fn default() -> Self {
        Orders
    }
}

fn main() {}
