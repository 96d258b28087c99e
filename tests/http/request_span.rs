//! The request's span: at DEBUG, each routed request is a `route` span that ends with its status
//! and time, and a panic is logged inside it; at INFO, a request logs nothing. And a served
//! app's shutdown logs in the order things happen, its spans naming providers as `provide`
//! names them.

use crate::support;

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

#[tokio::test]
async fn a_shutdown_logs_in_order_and_dispose_names_the_provider_as_provide_does() {
    use green_tea::prelude::*;
    use green_tea::{Module, ProviderFn};
    // DEBUG: the `provide` span's one event (`built`) is at DEBUG.
    let (logs, _guard) = Logs::start_at(Level::DEBUG);
    let orders = Module::new("orders")
        .provider(ProviderFn::new("payment", |_| async {
            Ok(String::from("card"))
        }))
        .route(
            Route::get("/pay", |request: RequestContext| async move {
                Ok::<_, HttpError>(request.need::<String>(0)?.to_string())
            })
            .needs::<String>("payment"),
        );
    let app = App::builder()
        .module(orders)
        .health_routes("/healthz", "/readyz")
        .build()
        .unwrap();
    let server = support::http::Server::start(&app).await;
    let paid = support::http::http1_client()
        .get(server.url("/pay").parse().unwrap())
        .await
        .unwrap();
    assert_eq!(paid.status(), 200);
    server.stop().await.unwrap();
    let text = logs.text();
    let lines: Vec<&str> = text.lines().collect();
    let line = |what: &str, found: &dyn Fn(&str) -> bool| {
        lines
            .iter()
            .position(|l| found(l))
            .unwrap_or_else(|| panic!("no {what} line in:\n{text}"))
    };
    let stopped = line("stopped accepting", &|l| l.contains("stopped accepting"));
    let closing = line("closing", &|l| l.contains("closing: draining"));
    let closed = line("closed", &|l| l.ends_with(": closed"));
    assert!(stopped < closing && closing < closed, "{text}");
    assert_eq!(text.matches("stopped accepting").count(), 1, "{text}");
    assert!(
        text.contains(
            "provide{provider=orders::payment keys=orders::payment kind=provider module=orders}"
        ),
        "{text}"
    );
    assert!(
        text.contains("dispose{provider=orders::payment keys=orders::payment}"),
        "{text}"
    );
}
