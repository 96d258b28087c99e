//! The client's address: the request value `clientAddr` (`ClientAddr`), needed by steps and
//! handlers, given from the connection by green-tea's server, through layers, and `None`
//! where there is no connection.

use crate::support;

use std::net::SocketAddr;

use axum::body::Body;
use green_tea::HttpError;
use green_tea::extract::{ClientAddr, RequestContext};
use green_tea::http::Request;
use green_tea::http::request::Parts;
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::util::MapRequestLayer;

use support::http::{Server, within};

/// A step that needs the address: who is calling, as text.
#[step(provides = "caller", needs = ["clientAddr"])]
fn caller(client: &ClientAddr, parts: &Parts) -> String {
    format!("{} {}", parts.method, client)
}

struct Whoami;

#[route("/whoami")]
impl Whoami {
    #[get("/")]
    async fn get(
        #[needs("clientAddr")] client: &ClientAddr,
        #[needs("caller")] caller: &String,
    ) -> String {
        format!("{client} | {caller}")
    }
}

/// A hand-written route reading it from its context, and one that does not need it.
fn by_hand() -> Vec<Route> {
    vec![
        Route::get("/context", |request: RequestContext| async move {
            match request.client_addr() {
                Some(addr) => addr.to_string(),
                None => "none".to_owned(),
            }
        }),
        Route::get("/plain", |_: RequestContext| async { "plain" }),
    ]
}

fn app() -> App {
    App::builder()
        .step(caller::step())
        .routes(Whoami::routes())
        .routes(by_hand())
        .build()
        .unwrap()
}

/// `GET path` over a connection of its own; the client's own address and the body.
async fn get_from(addr: SocketAddr, path: &str) -> (SocketAddr, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let local = stream.local_addr().unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    within("the response", stream.read_to_string(&mut response))
        .await
        .unwrap();
    let body = response.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
    (local, body)
}

#[tokio::test]
async fn steps_and_handlers_get_the_address_the_server_accepted() {
    let app = app();
    let server = Server::start(&app).await;
    let (local, body) = get_from(server.addr, "/whoami").await;
    assert_eq!(body, format!("{local} | GET {local}"));
    let (local, body) = get_from(server.addr, "/context").await;
    assert_eq!(body, local.to_string());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn in_process_it_is_unknown_unless_the_request_carries_one() {
    let app = app();
    let client = TestClient::new(app.clone());
    assert_eq!(
        client.get("/whoami").send().await.text(),
        "unknown | GET unknown"
    );
    assert_eq!(client.get("/context").send().await.text(), "none");

    // Whoever accepted the connection may put it in the request's extensions.
    let from: SocketAddr = "127.0.0.1:4242".parse().unwrap();
    let mut request = Request::get("/whoami").body(Body::empty()).unwrap();
    request.extensions_mut().insert(ClientAddr(Some(from)));
    let reply = app.handle(request).await;
    let body = http_body_util::BodyExt::collect(reply.into_body())
        .await
        .unwrap()
        .to_bytes();
    assert_eq!(body, "127.0.0.1:4242 | GET 127.0.0.1:4242");
}

#[tokio::test]
async fn layers_see_it_and_it_reaches_the_route_through_them() {
    let seen = |name: &'static str| {
        MapRequestLayer::new(move |mut request: Request<Body>| {
            let addr = request.extensions().get::<ClientAddr>().copied();
            let value = format!(
                "{name}={}",
                addr.map_or("missing".into(), |a| a.to_string())
            );
            request
                .headers_mut()
                .append("x-seen", value.parse().unwrap());
            request
        })
    };
    let app = App::builder()
        .step(caller::step())
        .route(
            Route::get("/seen", |request: RequestContext| async move {
                let client = request.need::<ClientAddr>(0)?;
                let seen: Vec<&str> = request
                    .parts()
                    .headers
                    .get_all("x-seen")
                    .iter()
                    .map(|v| v.to_str().unwrap())
                    .collect();
                Ok::<_, HttpError>(format!("{client} {}", seen.join(" ")))
            })
            .needs::<ClientAddr>(ClientAddr::KEY)
            .layer(seen("route")),
        )
        .layer(seen("app"))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let (local, body) = get_from(server.addr, "/seen").await;
    assert_eq!(body, format!("{local} app={local} route={local}"));
    server.stop().await.unwrap();
}

#[test]
fn only_an_app_that_needs_it_gets_the_step_and_explain_shows_it() {
    let app = app();
    let whoami = app.explain("/whoami").unwrap();
    let steps: Vec<&str> = whoami.routes[0]
        .steps
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(steps, ["the connection", "caller"]);
    let plain = app.explain("/plain").unwrap();
    assert!(plain.routes[0].steps.is_empty());

    let without = App::builder().routes(by_hand()).build().unwrap();
    assert!(format!("{without:?}").contains("steps: 0"), "{without:?}");
}

#[test]
fn an_app_scoped_provider_needing_it_is_a_build_error() {
    #[provider(provides = "auditLog", needs = ["clientAddr"])]
    fn audit_log(client: &ClientAddr) -> String {
        client.to_string()
    }

    let error = App::builder()
        .provider(audit_log::provider())
        .routes(Whoami::routes())
        .step(caller::step())
        .route(
            Route::get("/audit", |_: RequestContext| async { "audit" }).needs::<String>("auditLog"),
        )
        .build()
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("GT0006"), "{text}");
    assert!(text.contains("needs request-scoped `clientAddr`"), "{text}");
}
