//! Mounted tower services (`AppBuilder::nest_service`) and the fallback route
//! (`AppBuilder::fallback`): tower-http's `ServeDir` over real files, beside green-tea's routes.

use crate::support;

use std::path::PathBuf;

use axum::http::header::{CONTENT_RANGE, CONTENT_TYPE, RANGE};
use axum::http::{Request, StatusCode};
use bytes::Bytes;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::steps::Guard;
use green_tea::test::TestClient;
use green_tea::{App, HttpError, Json};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use support::http::{Server, http1_client, within};
use tower_http::services::ServeDir;

/// A directory of its own under the target's temp dir, with two files.
fn public_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("green-tea-mount-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("css")).unwrap();
    std::fs::write(dir.join("index.html"), "<h1>green tea</h1>").unwrap();
    std::fs::write(dir.join("css/app.css"), "body { color: green; }").unwrap();
    dir
}

fn api() -> Route {
    Route::get("/api/orders", |_: RequestContext| async {
        Json(json!({ "orders": [] }))
    })
}

#[tokio::test]
async fn serve_dir_beside_routes_with_a_range_request_and_a_404_inside_it() {
    let dir = public_dir("serve");
    let app = App::builder()
        .route(api())
        .nest_service("/static", ServeDir::new(&dir))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let client = http1_client();
    let get = |path: &str| {
        Request::get(server.url(path))
            .body(Full::new(Bytes::new()))
            .unwrap()
    };
    let read = |request| {
        let client = client.clone();
        async move {
            let response = within("a response", client.request(request)).await.unwrap();
            let (parts, body) = response.into_parts();
            (parts, body.collect().await.unwrap().to_bytes())
        }
    };

    let (parts, body) = read(get("/static/css/app.css")).await;
    assert_eq!(parts.status, StatusCode::OK);
    assert_eq!(parts.headers[CONTENT_TYPE], "text/css");
    assert_eq!(&body[..], b"body { color: green; }");

    let (parts, body) = read(get("/static/index.html?v=2")).await;
    assert_eq!(
        (parts.status, &body[..]),
        (StatusCode::OK, &b"<h1>green tea</h1>"[..])
    );

    let ranged = Request::get(server.url("/static/css/app.css"))
        .header(RANGE, "bytes=0-3")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, body) = read(ranged).await;
    assert_eq!(parts.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(parts.headers[CONTENT_RANGE], "bytes 0-3/22");
    assert_eq!(&body[..], b"body");

    // A 404 inside the mount is the service's own answer.
    let (parts, _) = read(get("/static/missing.js")).await;
    assert_eq!(parts.status, StatusCode::NOT_FOUND);
    // The routes beside it, and green-tea's JSON 404 outside it.
    let (parts, body) = read(get("/api/orders")).await;
    assert_eq!(parts.status, StatusCode::OK);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({ "orders": [] })
    );
    let (parts, body) = read(get("/nowhere")).await;
    assert_eq!(parts.status, StatusCode::NOT_FOUND);
    assert!(serde_json::from_slice::<Value>(&body).unwrap()["error"].is_string());
    server.stop().await.unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_mounted_service_sees_its_path_without_the_prefix_and_every_method() {
    let seen = tower::service_fn(|request: Request<axum::body::Body>| async move {
        let line = format!(
            "{} {}",
            request.method(),
            request.uri().path_and_query().unwrap()
        );
        Ok::<_, std::convert::Infallible>(line)
    });
    let app = App::builder()
        .route(api())
        .nest_service("/legacy/", seen)
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(
        client.get("/legacy/a/b?x=1").send().await.text(),
        "GET /a/b?x=1"
    );
    assert_eq!(client.delete("/legacy").send().await.text(), "DELETE /");
    assert_eq!(client.post("/legacy/x").send().await.text(), "POST /x");

    let explained = app.explain("/legacy/a").unwrap();
    assert_eq!(explained.template, "/legacy/{*rest}");
    assert_eq!(explained.routes[0].method, "ANY");
    assert!(
        explained.routes[0].handler.contains("mounted"),
        "{}",
        explained.routes[0].handler
    );
}

/// Every way a client can spell the prefix: with and without the trailing slash, with a query,
/// and a path under it that ends in a slash. `/static` and `/static/` both reach the service
/// as `/`, as under axum's `nest_service`.
#[tokio::test]
async fn the_prefix_with_and_without_its_slash_reaches_the_service_as_the_root() {
    let seen = tower::service_fn(|request: Request<axum::body::Body>| async move {
        let seen = request.uri().path_and_query().unwrap().to_string();
        Ok::<_, std::convert::Infallible>(seen)
    });
    let app = App::builder()
        .route(api())
        .nest_service("/echo", seen)
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    for (path, expected) in [
        ("/echo", "/"),
        ("/echo/", "/"),
        ("/echo?q=1", "/?q=1"),
        ("/echo/?q=1", "/?q=1"),
        ("/echo/x", "/x"),
        ("/echo/x/", "/x/"),
        ("/echo/x/y?z", "/x/y?z"),
    ] {
        let response = client.get(path).send().await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.text(), expected, "{path}");
    }
    // Beside the mount, a path that only starts like it is not under it.
    assert_eq!(client.get("/echoes").send().await.status(), 404);
    let explained = app.explain("/echo/").unwrap();
    assert_eq!(explained.template, "/echo/");
    assert!(explained.routes[0].handler.contains("mounted"));
}

/// What a browser asks for a directory, over a real connection: `ServeDir` answers `/static/`
/// with its index, as it answers `/static`.
#[tokio::test]
async fn serve_dir_answers_its_prefix_with_a_slash_with_the_index() {
    let dir = public_dir("slash");
    let app = App::builder()
        .nest_service("/static", ServeDir::new(&dir))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let client = http1_client();
    for path in ["/static", "/static/", "/static/?v=2"] {
        let request = Request::get(server.url(path))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let response = within("a response", client.request(request)).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"<h1>green tea</h1>", "{path}");
    }
    server.stop().await.unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

/// A mounted axum `Router` keeps axum's `ConnectInfo<SocketAddr>`: green-tea's server gives a
/// mount the client's address as `axum::serve` with connect info gives a router.
#[tokio::test]
async fn a_mounted_axum_router_reads_the_client_address_with_connect_info() {
    use axum::extract::ConnectInfo;
    use std::net::SocketAddr;

    let legacy = axum::Router::new().route(
        "/whoami",
        axum::routing::get(|ConnectInfo(addr): ConnectInfo<SocketAddr>| async move {
            addr.ip().to_string()
        }),
    );
    let app = App::builder()
        .route(api())
        .nest_service("/v1", legacy)
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let request = Request::get(server.url("/v1/whoami"))
        .body(Full::new(Bytes::new()))
        .unwrap();
    let response = within("a response", http1_client().request(request))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(&body[..], b"127.0.0.1");
    server.stop().await.unwrap();
}

#[test]
fn a_route_under_a_mount_a_root_mount_and_a_prefix_with_parameters_are_build_errors() {
    let dir = public_dir("errors");
    let error = App::builder()
        .route(Route::get("/static/app.js", |_: RequestContext| async {
            "js"
        }))
        .nest_service("/static", ServeDir::new(&dir))
        .nest_service("/", ServeDir::new(&dir))
        .nest_service("/files/{user}", ServeDir::new(&dir))
        .nest_service("/static/img", ServeDir::new(&dir))
        .build()
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("GT0008"), "{text}");
    assert!(
        text.contains("/static/app.js is under the service mounted at /static"),
        "{text}"
    );
    assert!(text.contains("would take every path"), "{text}");
    assert!(
        text.contains("without parameters: `/files/{user}`"),
        "{text}"
    );
    assert!(
        text.contains("the service mounted at /static/img is under it"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn the_fallback_answers_unknown_paths_with_its_needs_and_steps_and_a_405_stays() {
    let app = App::builder()
        .value("site", String::from("green-tea shop"))
        .step(Guard::new("notBlocked", |parts, _| {
            if parts.uri.path().starts_with("/blocked") {
                Err(HttpError::forbidden("blocked"))
            } else {
                Ok(())
            }
        }))
        .route(api())
        .fallback(
            Route::fallback(|request: RequestContext| async move {
                let site = request.need::<String>(0)?;
                let path = request.parts().uri.path().to_owned();
                Ok::<_, HttpError>((
                    StatusCode::NOT_FOUND,
                    Json(json!({ "site": *site, "missing": path })),
                ))
            })
            .needs::<String>("site")
            .step("notBlocked"),
        )
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let missing = client.get("/old/page").send().await;
    assert_eq!(missing.status(), 404);
    assert_eq!(
        missing.json::<Value>(),
        json!({ "site": "green-tea shop", "missing": "/old/page" })
    );
    assert_eq!(client.post("/anything").send().await.status(), 404);
    assert_eq!(client.get("/blocked/x").send().await.status(), 403);
    // A path that matches with another method is still a 405.
    let not_allowed = client.delete("/api/orders").send().await;
    assert_eq!(not_allowed.status(), 405);
    assert_eq!(not_allowed.header("allow"), Some("GET, HEAD"));

    let explained = app.explain("/old/page").unwrap();
    assert_eq!(explained.template, "(fallback)");
    assert_eq!(explained.routes[0].steps[0].name, "notBlocked");
    assert_eq!(explained.routes[0].needs, ["site"]);
    let all = app.explain_all();
    assert_eq!(all.paths.last().unwrap().template, "(fallback)");
}

#[test]
fn a_fallback_is_checked_at_build_like_any_route() {
    let error = App::builder()
        .route(api())
        .fallback(
            Route::fallback(|_: RequestContext| async { "never" })
                .needs::<String>("siteName")
                .step("noSuchStep"),
        )
        .build()
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("siteName"), "{text}");
    assert!(text.contains("noSuchStep"), "{text}");
}

#[test]
fn an_app_of_only_a_mount_or_only_a_fallback_is_not_warned_of_having_no_routes() {
    let dir = public_dir("warnings");
    let mounted = App::builder()
        .nest_service("/static", ServeDir::new(&dir))
        .build()
        .unwrap();
    assert!(mounted.warnings().is_empty(), "{:?}", mounted.warnings());
    let fallback = App::builder()
        .fallback(Route::fallback(|_: RequestContext| async { "anything" }))
        .build()
        .unwrap();
    assert!(fallback.warnings().is_empty(), "{:?}", fallback.warnings());
    let empty = App::builder().build().unwrap();
    assert_eq!(empty.warnings().len(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}
