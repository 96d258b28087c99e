//! The request's span: at DEBUG, each routed request is a `route` span that ends with its status
//! and time, and a panic is logged inside it; at INFO, a request logs nothing.

mod support;

use green_tea::App;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use support::logs::Logs;
use tracing::Level;

fn client() -> TestClient {
    let app = App::builder()
        .route(Route::get("/hello", |_: RequestContext| async { "hi" }))
        .route(Route::get("/panic", |_: RequestContext| async {
            panic!("boom") as &str
        }))
        .build()
        .unwrap();
    TestClient::new(app)
}

#[tokio::test]
async fn at_debug_a_request_finishes_its_span_with_status_and_time() {
    let (logs, _guard) = Logs::start_at(Level::DEBUG);
    let answered = client().get("/hello").send().await;
    assert_eq!(answered.status(), 200);
    let text = logs.text();
    let finished = text
        .lines()
        .find(|line| line.ends_with("finished"))
        .unwrap_or_else(|| panic!("no `finished` event in:\n{text}"));
    assert!(
        finished.contains(
            "route{http.request.method=GET http.route=/hello http.response.status_code=200 micros="
        ),
        "{finished}"
    );
}

#[tokio::test]
async fn a_panic_is_logged_inside_the_request_span_and_answered_500() {
    let (logs, _guard) = Logs::start_at(Level::DEBUG);
    let answered = client().get("/panic").send().await;
    assert_eq!(answered.status(), 500);
    let text = logs.text();
    let panicked = text
        .lines()
        .find(|line| line.contains("the request panicked"))
        .unwrap_or_else(|| panic!("no panic logged in:\n{text}"));
    assert!(panicked.contains("ERROR"), "{panicked}");
    assert!(
        panicked.contains("route{http.request.method=GET http.route=/panic"),
        "{panicked}"
    );
    assert!(panicked.contains("panic=boom"), "{panicked}");
    let finished = text
        .lines()
        .find(|line| line.ends_with("finished"))
        .unwrap_or_else(|| panic!("no `finished` event in:\n{text}"));
    assert!(
        finished.contains("http.response.status_code=500"),
        "{finished}"
    );
}

#[tokio::test]
async fn at_info_a_request_logs_nothing() {
    let (logs, _guard) = Logs::start();
    assert_eq!(client().get("/hello").send().await.status(), 200);
    assert_eq!(logs.text(), "");
}
