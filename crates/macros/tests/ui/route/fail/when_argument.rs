use green_tea::prelude::*;

struct Prices;

#[route("/prices")]
impl Prices {
    #[get("/cached", when = "cacheOn")]
    fn cached() -> &'static str {
        "cached"
    }
}

fn main() {}
