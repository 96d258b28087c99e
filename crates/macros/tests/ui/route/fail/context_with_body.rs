use green_tea::prelude::*;

struct Jobs;

#[route("/jobs")]
impl Jobs {
    #[post("/")]
    async fn start(request: RequestContext, #[body] note: String) -> String {
        let _guard = request.keep_in_flight();
        note
    }
}

fn main() {}
