//! `Debug` of the types users hold while they put an app together and serve a request: the
//! builder, a route and a request's context name what they carry.

use green_tea::App;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::test::TestClient;

fn hello() -> Route {
    Route::get("/hello/{name}", |request: RequestContext| async move {
        format!("{request:?}")
    })
    .named("hello")
}

#[test]
fn a_route_names_its_method_path_and_name() {
    let route = format!("{:?}", hello());
    for part in ["Route", "GET", "/hello/{name}", "\"hello\""] {
        assert!(route.contains(part), "no {part} in {route}");
    }
}

#[test]
fn a_builder_names_its_providers_and_routes() {
    let builder = App::builder().value("greeting", "hi").route(hello());
    let builder = format!("{builder:?}");
    for part in [
        "AppBuilder",
        "ContainerBuilder",
        "greeting",
        "/hello/{name}",
    ] {
        assert!(builder.contains(part), "no {part} in {builder}");
    }
}

#[tokio::test]
async fn a_request_context_names_its_method_and_uri() {
    let app = App::builder().route(hello()).build().expect("a valid app");
    let reply = TestClient::new(app).get("/hello/ada?x=1").send().await;
    assert_eq!(reply.status(), 200);
    let context = reply.text();
    for part in ["RequestContext", "GET", "/hello/ada?x=1"] {
        assert!(context.contains(part), "no {part} in {context}");
    }
}
