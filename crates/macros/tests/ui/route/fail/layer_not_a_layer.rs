use green_tea::prelude::*;

struct Reports;

#[route("/reports")]
impl Reports {
    #[get("/daily", layer = std::time::Duration::from_secs(5))]
    fn daily() -> &'static str {
        "daily"
    }
}

fn main() {}
