use green_tea::prelude::*;

struct Prices;

#[route("/prices", when = "!pricesOn = yes")]
impl Prices {
    #[get("/cached", when = ["cacheOn", "= stripe"])]
    fn cached() -> &'static str {
        "cached"
    }
}

fn main() {}
