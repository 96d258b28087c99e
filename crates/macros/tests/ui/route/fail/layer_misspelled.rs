use green_tea::prelude::*;

async fn stamp(response: axum::response::Response) -> axum::response::Response {
    response
}

struct Reports;

#[route("/reports")]
impl Reports {
    #[get("/daily", layers = [axum::middleware::map_response(stamp)])]
    fn daily() -> &'static str {
        "daily"
    }
}

fn main() {}
