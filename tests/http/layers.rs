//! tower layers: around the whole app (`AppBuilder::layer`) and around one route
//! (`Route::layer`), with the real tower-http layers, served by green-tea's own server and
//! in process.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{
    ACCEPT_ENCODING, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_REQUEST_METHOD, CONTENT_ENCODING, CONTENT_TYPE, ORIGIN,
};
use axum::http::{HeaderName, HeaderValue, Method, Request, StatusCode};
use bytes::Bytes;
use green_tea::extract::{Path, RequestContext};
use green_tea::routing::Route;
use green_tea::steps::Guard;
use green_tea::test::TestClient;
use green_tea::{App, HttpError, Json};
use http_body_util::{BodyExt, Full, StreamBody};
use serde_json::{Value, json};
use support::Log;
use support::http::{Server, clients, http1_client, within};
use support::logs::Logs;
use tower::ServiceExt;
use tower::util::MapRequestLayer;
use tower_http::compression::CompressionLayer;
use tower_http::cors::CorsLayer;
use tower_http::decompression::Decompression;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

const SHOP: &str = "https://shop.example";

fn orders() -> Route {
    Route::get("/orders/{id}", |mut request: RequestContext| async move {
        let Path(id) = request.extract::<Path<u64>>().await?;
        Ok::<_, axum::response::Response>(Json(json!({ "id": id })))
    })
}

fn echo() -> Route {
    Route::post("/echo", |mut request: RequestContext| async move {
        let text = request.text().await?;
        Ok::<_, HttpError>(text)
    })
}

/// Reads a whole response off any body.
async fn read<B>(response: http::Response<B>) -> (http::response::Parts, Bytes)
where
    B: hyper::body::Body<Data = Bytes>,
    B::Error: std::fmt::Debug,
{
    let (parts, body) = response.into_parts();
    let body = within("the body", body.collect())
        .await
        .expect("the body reads")
        .to_bytes();
    (parts, body)
}

#[tokio::test]
async fn cors_answers_a_preflight_and_marks_a_simple_request_over_loopback() {
    let app = App::builder()
        .route(orders())
        .layer(
            CorsLayer::new()
                .allow_origin(HeaderValue::from_static(SHOP))
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([CONTENT_TYPE]),
        )
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let client = http1_client();

    // No OPTIONS route exists: without the layer this would be a 405.
    let preflight = Request::options(server.url("/orders/7"))
        .header(ORIGIN, SHOP)
        .header(ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, _) = read(
        within("preflight", client.request(preflight))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(parts.status, StatusCode::OK);
    assert_eq!(parts.headers[ACCESS_CONTROL_ALLOW_ORIGIN], SHOP);
    let methods = parts.headers[ACCESS_CONTROL_ALLOW_METHODS]
        .to_str()
        .unwrap();
    assert!(methods.contains("POST"), "{methods}");

    let simple = Request::get(server.url("/orders/7"))
        .header(ORIGIN, SHOP)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, body) = read(within("simple", client.request(simple)).await.unwrap()).await;
    assert_eq!(parts.status, StatusCode::OK);
    assert_eq!(parts.headers[ACCESS_CONTROL_ALLOW_ORIGIN], SHOP);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({ "id": 7 })
    );

    // Another origin is not allowed: the header names only the allowed one, so a browser
    // refuses the answer (the handler still runs, as CORS is the browser's to enforce).
    let foreign = Request::get(server.url("/orders/8"))
        .header(ORIGIN, "https://elsewhere.example")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, _) = read(within("foreign", client.request(foreign)).await.unwrap()).await;
    assert_eq!(parts.status, StatusCode::OK);
    assert_eq!(parts.headers[ACCESS_CONTROL_ALLOW_ORIGIN], SHOP);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn compression_is_decoded_by_a_real_client_over_http1_and_http2() {
    let big: Vec<Value> = (0..500)
        .map(|i| json!({ "id": i, "state": "shipped" }))
        .collect();
    let expected = serde_json::to_vec(&big).unwrap();
    let app = App::builder()
        .route(Route::get("/orders", move |_: RequestContext| {
            let big = big.clone();
            async move { Json(big) }
        }))
        .layer(CompressionLayer::new())
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    for client in clients() {
        // As sent: gzip, and smaller.
        let request = Request::get(server.url("/orders"))
            .header(ACCEPT_ENCODING, "gzip")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let (parts, raw) = read(within("raw", client.request(request)).await.unwrap()).await;
        assert_eq!(parts.headers[CONTENT_ENCODING], "gzip");
        assert!(raw.len() < expected.len() / 4, "{} bytes", raw.len());

        // Decoded by tower-http's client-side decompression around hyper's client.
        let request = Request::get(server.url("/orders"))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let response = within("decoded", Decompression::new(client).oneshot(request))
            .await
            .unwrap();
        let (_, decoded) = read(response).await;
        assert_eq!(decoded, expected);
    }
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_trace_layer_sees_every_request_including_404_and_405() {
    let (logs, _guard) = Logs::start_at(tracing::Level::DEBUG);
    let app = App::builder()
        .route(orders())
        .layer(TraceLayer::new_for_http())
        .build()
        .unwrap();
    let client = TestClient::new(app);
    assert_eq!(client.get("/orders/1").send().await.status(), 200);
    assert_eq!(client.get("/nowhere").send().await.status(), 404);
    assert_eq!(client.post("/orders/1").send().await.status(), 405);
    let text = logs.text();
    for status in ["status=200", "status=404", "status=405"] {
        assert!(
            text.lines()
                .any(|line| line.contains("finished processing request") && line.contains(status)),
            "no {status} in:\n{text}"
        );
    }
    assert!(text.contains("uri=/nowhere"), "{text}");
}

#[tokio::test]
async fn a_timeout_layer_answers_408_and_releases_the_request() {
    let app = App::builder()
        .route(Route::get("/stuck", |_: RequestContext| async {
            std::future::pending::<()>().await;
            "never"
        }))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            Duration::from_millis(20),
        ))
        .drain_timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let client = http1_client();
    let request = Request::get(server.url("/stuck"))
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (parts, _) = read(
        within("the timeout", client.request(request))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(parts.status, StatusCode::REQUEST_TIMEOUT);
    // The handler's future was dropped with the request's place in flight: close() does
    // not wait out its 60 s drain.
    within("close after a timed-out request", app.close())
        .await
        .unwrap();
    server.finished().await.unwrap();
}

#[tokio::test]
async fn a_body_limit_layer_next_to_green_teas_own_limit() {
    let app = App::builder()
        .route(echo().body_limit(1024))
        .route(
            Route::post("/small", |mut request: RequestContext| async move {
                let text = request.text().await?;
                Ok::<_, HttpError>(text)
            })
            .body_limit(8),
        )
        .layer(RequestBodyLimitLayer::new(16))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let client = http1_client();
    let post = |path: &str, body: &'static str| {
        Request::post(server.url(path))
            .body(Full::new(Bytes::from_static(body.as_bytes())))
            .unwrap()
    };

    let (parts, body) = read(client.request(post("/echo", "within both")).await.unwrap()).await;
    assert_eq!(
        (parts.status, &body[..]),
        (StatusCode::OK, &b"within both"[..])
    );

    // Announced past the layer's 16 bytes: the layer refuses it before the route runs, in its
    // own body, which is not JSON (the middleware guide's table says so; the errors guide has
    // the layer that rewrites it).
    let (parts, body) = read(
        client
            .request(post("/echo", "past the layer's sixteen bytes"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(parts.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(parts.headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(&body[..], b"length limit exceeded");

    // Past the route's own 8 bytes but within the layer's: green-tea's JSON 413.
    let (parts, body) = read(client.request(post("/small", "nine byte")).await.unwrap()).await;
    assert_eq!(parts.status, StatusCode::PAYLOAD_TOO_LARGE);
    let error: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        error["error"].as_str().unwrap().contains("8 bytes"),
        "{error}"
    );

    // Streamed (no content-length) past the layer's limit: the layer's limited body fails as
    // green-tea reads it, and that is a 413 too, not a 400.
    let chunks = ["twelve bytes", " and more than sixteen"]
        .map(|c| Ok::<_, std::convert::Infallible>(hyper::body::Frame::data(Bytes::from(c))));
    let streamed = Request::post(server.url("/echo"))
        .body(StreamBody::new(futures_util::stream::iter(chunks)))
        .unwrap();
    let streaming =
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build_http();
    let (parts, body) = read(
        within("streamed", streaming.request(streamed))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(parts.status, StatusCode::PAYLOAD_TOO_LARGE, "{body:?}");
    let error: Value = serde_json::from_slice(&body).unwrap();
    // Not the route's 1,024 bytes: the layer's limit, whose size its error does not say.
    assert_eq!(
        error["error"],
        "the request body is larger than this server accepts"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_route_layer_wraps_only_its_route_after_routing() {
    let tag = |value: &'static str| {
        SetResponseHeaderLayer::appending(
            HeaderName::from_static("x-layer"),
            HeaderValue::from_static(value),
        )
    };
    let guard = Guard::new("signedIn", |parts, _needs| {
        if parts.headers.contains_key("authorization") {
            Ok(())
        } else {
            Err(HttpError::unauthorized("sign in first"))
        }
    });
    let app = App::builder()
        .step(guard)
        .route(orders().step("signedIn").layer(tag("orders")))
        .route(Route::get("/health", |_: RequestContext| async { "ok" }))
        .build()
        .unwrap();
    let client = TestClient::new(app);

    // Its route's requests, path parameters intact.
    let response = client
        .get("/orders/5")
        .header("authorization", "yes")
        .send()
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>(), json!({ "id": 5 }));
    assert_eq!(response.header("x-layer"), Some("orders"));
    // A step's rejection comes out through the route's layer.
    let rejected = client.get("/orders/5").send().await;
    assert_eq!(rejected.status(), 401);
    assert_eq!(rejected.header("x-layer"), Some("orders"));
    // Nothing else: another route, a 404, a 405.
    assert_eq!(client.get("/health").send().await.header("x-layer"), None);
    assert_eq!(client.get("/nowhere").send().await.header("x-layer"), None);
    let not_allowed = client.post("/orders/5").send().await;
    assert_eq!(not_allowed.status(), 405);
    assert_eq!(not_allowed.header("x-layer"), None);
}

#[tokio::test]
async fn layers_added_later_see_the_request_first() {
    let log = Log::default();
    let mark = |name: &'static str| {
        let log = log.clone();
        MapRequestLayer::new(move |request: Request<Body>| {
            log.push(name);
            request
        })
    };
    let app = App::builder()
        .route(
            orders()
                .layer(mark("route inner"))
                .layer(mark("route outer")),
        )
        .layer(mark("app inner"))
        .layer(mark("app outer"))
        .build()
        .unwrap();
    let response = TestClient::new(app).get("/orders/3").send().await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        log.events(),
        ["app outer", "app inner", "route outer", "route inner"]
    );
}

#[tokio::test]
async fn a_panicking_layer_is_a_500_and_the_server_keeps_serving() {
    let app = App::builder()
        .route(orders())
        .route(echo().layer(MapRequestLayer::new(|request: Request<Body>| {
            assert!(
                !request.headers().contains_key("x-panic"),
                "the route layer was told to panic"
            );
            request
        })))
        .layer(MapRequestLayer::new(|request: Request<Body>| {
            assert!(
                request.uri().path() != "/panic",
                "the app layer was told to panic"
            );
            request
        }))
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let client = http1_client();
    for path in ["/panic", "/orders/1"] {
        let request = Request::get(server.url(path))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let (parts, body) = read(client.request(request).await.unwrap()).await;
        if path == "/panic" {
            assert_eq!(parts.status, StatusCode::INTERNAL_SERVER_ERROR);
            let error: Value = serde_json::from_slice(&body).unwrap();
            assert!(error["error"].is_string(), "{error}");
        } else {
            assert_eq!(parts.status, StatusCode::OK);
        }
    }
    let request = Request::post(server.url("/echo"))
        .header("x-panic", "1")
        .body(Full::new(Bytes::from_static(b"hi")))
        .unwrap();
    let (parts, _) = read(client.request(request).await.unwrap()).await;
    assert_eq!(parts.status, StatusCode::INTERNAL_SERVER_ERROR);
    let request = Request::post(server.url("/echo"))
        .body(Full::new(Bytes::from_static(b"still here")))
        .unwrap();
    let (parts, body) = read(client.request(request).await.unwrap()).await;
    assert_eq!(
        (parts.status, &body[..]),
        (StatusCode::OK, &b"still here"[..])
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_app_as_a_tower_service_goes_through_its_layers() {
    let app = App::builder()
        .route(orders())
        .layer(SetResponseHeaderLayer::overriding(
            HeaderName::from_static("x-app"),
            HeaderValue::from_static("green-tea"),
        ))
        .build()
        .unwrap();
    let request = Request::get("/orders/2").body(Body::empty()).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.headers()["x-app"], "green-tea");
    let (_, body) = read(response).await;
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({ "id": 2 })
    );
}

#[tokio::test]
async fn an_app_with_layers_is_freed_when_dropped() {
    // The layers' innermost services hold the app weakly: no cycle keeps it alive.
    let marker = Arc::new(());
    let app = App::builder()
        .value("marker", Arc::clone(&marker))
        .route(orders().layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            Duration::from_secs(5),
        )))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            Duration::from_secs(5),
        ))
        .build()
        .unwrap();
    assert_eq!(Arc::strong_count(&marker), 2);
    let client = TestClient::new(app);
    assert_eq!(client.get("/orders/1").send().await.status(), 200);
    drop(client);
    assert_eq!(Arc::strong_count(&marker), 1, "the app was not freed");
}

#[test]
fn explain_lists_the_layers_a_route_meets_outermost_first() {
    let app = App::builder()
        .route(
            orders()
                .layer(TimeoutLayer::with_status_code(
                    StatusCode::REQUEST_TIMEOUT,
                    Duration::from_secs(5),
                ))
                .layer(CompressionLayer::new()),
        )
        .route(echo())
        .layer(TraceLayer::new_for_http())
        .layer(CorsLayer::permissive())
        .build()
        .unwrap();
    let orders = &app.explain("/orders/1").unwrap().routes[0];
    assert_eq!(
        orders.layers,
        [
            "CorsLayer (app)",
            "TraceLayer (app)",
            "CompressionLayer",
            "TimeoutLayer"
        ]
    );
    assert!(
        orders
            .to_string()
            .contains("layers, outermost first: CorsLayer (app), TraceLayer (app), CompressionLayer, TimeoutLayer"),
        "{orders}"
    );
    let echoed = &app.explain("/echo").unwrap().routes[0];
    assert_eq!(echoed.layers, ["CorsLayer (app)", "TraceLayer (app)"]);
    let plain = App::builder().route(echo()).build().unwrap();
    let plain = &plain.explain("/echo").unwrap().routes[0];
    assert!(plain.layers.is_empty());
    assert!(!plain.to_string().contains("layers, outermost"), "{plain}");
}
