//! The app as a `tower::Service`: called with `oneshot`, mounted in an axum `Router` (in-process
//! and served by axum over loopback), and wrapped in a tower-http layer.

use crate::support;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use axum::routing::get;
use green_tea::extract::{Path, RequestContext};
use green_tea::response::IntoResponse;
use green_tea::routing::Route;
use green_tea::{App, HttpError, Json};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use support::http::{http1_client, post, within};
use support::{Log, Probe, Service};
use tower::{ServiceBuilder, ServiceExt};
use tower_http::set_header::SetResponseHeaderLayer;

/// `GET /orders/{id}` (needs `db`; answers with the path it saw), `POST /orders` (echoes its
/// JSON body, 8 bytes at most) and `GET /` (the root of wherever it is mounted).
fn app(log: &Log) -> App {
    App::builder()
        .provider(Probe::new("db", &[], log))
        .route(
            Route::get("/orders/{id}", |mut request: RequestContext| async move {
                let db = request
                    .need::<Service>(0)
                    .map_err(IntoResponse::into_response)?;
                let Path(id) = request.extract::<Path<u64>>().await?;
                let seen = request.parts().uri.path().to_owned();
                Ok::<_, axum::response::Response>(Json(
                    json!({ "id": id, "seen": seen, "db": db.name }),
                ))
            })
            .needs::<Service>("db"),
        )
        .route(
            Route::post("/orders", |mut request: RequestContext| async move {
                let order: Value = request.json().await?;
                Ok::<_, HttpError>(Json(order))
            })
            .body_limit(16),
        )
        .route(Route::get("/", |_: RequestContext| async {
            "green-tea root"
        }))
        .build()
        .expect("a valid graph")
}

/// The status and the whole body of a response.
/// Status and body text of any response: the app's own (`Reply`) or axum's.
async fn read<B>(response: Response<B>) -> (StatusCode, String)
where
    B: hyper::body::Body<Data = bytes::Bytes>,
    B::Error: std::fmt::Debug,
{
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    (status, String::from_utf8(body.to_vec()).expect("UTF-8"))
}

fn get_request(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).unwrap()
}

fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

#[tokio::test]
async fn oneshot_calls_the_app_and_clones_share_its_providers() {
    let log = Log::default();
    let app = app(&log);

    for _ in 0..3 {
        // Any body type with `Bytes` chunks goes: here a `String`.
        let request = Request::get("/orders/7").body(String::new()).unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        let (status, body) = read(response).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            json_of(&body),
            json!({ "id": 7, "seen": "/orders/7", "db": "db" })
        );
    }
    assert_eq!(
        log.names("provide"),
        ["db"],
        "clones of the app share one container"
    );

    let request = Request::post("/orders")
        .header("content-type", "application/json")
        .body(http_body_util::Full::new(bytes::Bytes::from_static(
            b"{\"a\":1}",
        )))
        .unwrap();
    let (status, body) = read(app.clone().oneshot(request).await.unwrap()).await;
    assert_eq!((status.as_u16(), json_of(&body)), (200, json!({ "a": 1 })));

    let (status, body) = read(app.clone().oneshot(get_request("/nope")).await.unwrap()).await;
    assert_eq!(
        (status.as_u16(), json_of(&body)),
        (404, json!({ "error": "no route for GET /nope" }))
    );
    app.close().await.unwrap();
}

/// An axum router with the app under `/api` next to a route of its own.
fn router(app: &App) -> Router {
    Router::new()
        .route("/axum", get(|| async { "from axum" }))
        .nest_service("/api", app.clone())
}

#[tokio::test]
async fn nested_in_axum_the_app_sees_paths_without_the_prefix() {
    let log = Log::default();
    let app = app(&log);
    let router = router(&app);
    let call = |request: Request<Body>| {
        let router = router.clone();
        async move { read(router.oneshot(request).await.unwrap()).await }
    };

    let (status, body) = call(get_request("/api/orders/42")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        json_of(&body)["seen"],
        "/orders/42",
        "axum strips the prefix"
    );
    assert_eq!(json_of(&body)["id"], 42);

    let (status, body) = call(get_request("/api/nope")).await;
    assert_eq!(status, 404);
    assert_eq!(
        json_of(&body),
        json!({ "error": "no route for GET /nope" }),
        "the app's own 404"
    );

    let (status, body) = call(get_request("/api")).await;
    assert_eq!(
        (status.as_u16(), body.as_str()),
        (200, "green-tea root"),
        "the prefix alone is the app's root"
    );

    let (status, body) = call(get_request("/axum")).await;
    assert_eq!((status.as_u16(), body.as_str()), (200, "from axum"));

    let (status, body) = call(
        Request::delete("/api/orders/42")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, 405, "{body}");
    app.close().await.unwrap();
    assert_eq!(log.names("dispose"), ["db"]);
}

#[tokio::test]
async fn served_by_axum_over_loopback() {
    let log = Log::default();
    let app = app(&log);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(
        axum::serve(listener, router(&app))
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .into_future(),
    );
    let client = http1_client();
    let url = |path: &str| format!("http://{addr}{path}");

    let reply = support::http::get(&client, &url("/api/orders/9"))
        .await
        .expect("axum answers");
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        reply.json(),
        json!({ "id": 9, "seen": "/orders/9", "db": "db" })
    );

    let reply = post(&client, &url("/api/orders"), &json!({ "a": 1 }))
        .await
        .unwrap();
    assert_eq!(
        (reply.status.as_u16(), reply.json()),
        (200, json!({ "a": 1 }))
    );
    let too_big = post(
        &client,
        &url("/api/orders"),
        &json!({ "text": "more than sixteen bytes" }),
    )
    .await
    .unwrap();
    assert_eq!(
        too_big.status,
        413,
        "the body limit holds through axum: {}",
        too_big.text()
    );

    let reply = support::http::get(&client, &url("/axum")).await.unwrap();
    assert_eq!(reply.text(), "from axum");

    let _ = stop.send(());
    within("axum::serve", serving)
        .await
        .unwrap()
        .expect("axum stops cleanly");
    // axum owns the socket, so closing the app is the program's job.
    assert!(!app.is_closed());
    app.close().await.unwrap();
    assert_eq!(log.names("dispose"), ["db"]);
}

#[tokio::test]
async fn under_a_tower_http_layer_every_response_gets_the_header() {
    let log = Log::default();
    let app = app(&log);
    let served_by = HeaderName::from_static("x-served-by");
    let layered = ServiceBuilder::new()
        .layer(SetResponseHeaderLayer::overriding(
            served_by.clone(),
            HeaderValue::from_static("green-tea"),
        ))
        .service(app.clone());

    for (path, status) in [("/orders/1", 200), ("/orders/x", 400), ("/nope", 404)] {
        let response = layered.clone().oneshot(get_request(path)).await.unwrap();
        assert_eq!(response.status(), status, "{path}");
        assert_eq!(response.headers()[&served_by], "green-tea", "{path}");
    }

    // The layered app mounts in axum like the bare one.
    let router = Router::new().nest_service("/api", layered.clone());
    let response = router.oneshot(get_request("/api/orders/5")).await.unwrap();
    assert_eq!(response.headers()[&served_by], "green-tea");
    let (status, body) = read(response).await;
    assert_eq!(
        (status.as_u16(), json_of(&body)["seen"].clone()),
        (200, json!("/orders/5"))
    );

    app.close().await.unwrap();
    let response = layered.oneshot(get_request("/orders/1")).await.unwrap();
    assert_eq!(response.status(), 503, "after close");
    assert_eq!(response.headers()[&served_by], "green-tea");
}
