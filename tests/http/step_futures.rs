//! A step costs a boxed future per request only if it waits: which one it is is decided where
//! the step is made (`#[step]` on a sync fn without extractors, `StepFn`, `Guard`: ready), not
//! by a second method the app must know to call.

use green_tea::HttpError;
use green_tea::extract::Query;
use green_tea::http::request::Parts;
use green_tea::prelude::*;
use green_tea::steps::{Guard, Step, StepFn};
use green_tea::test::TestClient;
use green_tea_core::__private::layer;

#[step(provides = "requestId")]
fn request_id(parts: &Parts) -> String {
    parts.uri.path().to_owned()
}

#[step(provides = "later")]
async fn later(parts: &Parts) -> String {
    tokio::task::yield_now().await;
    parts.uri.path().to_owned()
}

#[derive(serde::Deserialize)]
struct Page {
    n: Option<u32>,
}

#[step(provides = "page")]
fn page(Query(page): Query<Page>) -> u32 {
    page.n.unwrap_or(1)
}

fn future_of(step: &dyn Step) -> String {
    let container = Container::builder().build().unwrap();
    let (mut parts, ()) = http::Request::new(()).into_parts();
    let needs = layer::values::needs(&container, &[], &[], &[]);
    format!("{:?}", step.run(&mut parts, needs))
}

#[test]
fn a_step_that_never_waits_answers_without_a_boxed_future() {
    assert_eq!(future_of(&request_id::step()), "StepFuture::Ready");
    let by_hand = StepFn::new("n", |_: &Parts, _| Ok::<_, HttpError>(1_u32));
    assert_eq!(future_of(&by_hand), "StepFuture::Ready");
    assert_eq!(
        future_of(&Guard::new("open", |_: &Parts, _| Ok(()))),
        "StepFuture::Ready"
    );
}

#[test]
fn a_step_that_may_wait_is_boxed_once() {
    assert_eq!(future_of(&later::step()), "StepFuture::Boxed");
    // An extractor's future may wait, so a step with one is asynchronous too.
    assert_eq!(future_of(&page::step()), "StepFuture::Boxed");
}

#[tokio::test]
async fn both_kinds_serve_the_same() {
    struct Echo;

    #[route("/echo")]
    impl Echo {
        #[get("/")]
        async fn echo(
            #[needs("requestId")] id: &String,
            #[needs("later")] later: &String,
            #[needs("page")] page: &u32,
        ) -> String {
            format!("{id} {later} {page}")
        }
    }

    let app = App::builder()
        .step(request_id::step())
        .step(later::step())
        .step(page::step())
        .routes(Echo::routes())
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/echo?n=3").send().await.text(), "/echo /echo 3");
    app.close().await.unwrap();
}
