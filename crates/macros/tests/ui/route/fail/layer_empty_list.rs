use green_tea::prelude::*;

struct Reports;

#[route("/reports")]
impl Reports {
    #[get("/daily", layer = [])]
    fn daily() -> &'static str {
        "daily"
    }
}

fn main() {}
