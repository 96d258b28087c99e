use green_tea::prelude::*;

struct Jobs;

#[route("/jobs")]
impl Jobs {
    #[post("/")]
    async fn start(request: &RequestContext) -> &'static str {
        let _guard = request.keep_in_flight();
        "accepted"
    }
}

fn main() {}
