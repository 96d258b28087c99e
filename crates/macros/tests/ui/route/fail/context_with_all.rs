use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list(
        request: RequestContext,
        #[needs("notifiers[]")] notifiers: All<'_, String>,
    ) -> String {
        format!("{} {}", request.parts().uri, notifiers.len())
    }
}

fn main() {}
