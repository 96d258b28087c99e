//! Reading requests: `Path` and `Query`, axum extractors through `extract`, bodies as text,
//! bytes and JSON, and `HEAD` on `GET` routes.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use green_tea::extract::{Path, Query, RequestContext};
use green_tea::response::{IntoResponse, Response};
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{App, HttpError, Json};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize, Serialize)]
struct UserOrder {
    user: String,
    id: u64,
}

#[derive(Deserialize, Serialize)]
struct Search {
    q: String,
    page: Option<u32>,
}

/// A hand-written extractor: the `x-api-key` header, or a 401 in plain text.
struct ApiKey(String);

impl<S: Send + Sync> FromRequestParts<S> for ApiKey {
    type Rejection = (StatusCode, &'static str);

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .headers
            .get("x-api-key")
            .and_then(|v| v.to_str().ok())
            .map(|key| ApiKey(key.to_owned()))
            .ok_or((StatusCode::UNAUTHORIZED, "missing x-api-key"))
    }
}

fn client() -> TestClient {
    let app = App::builder()
        .route(Route::get(
            "/orders/{id}",
            |mut request: RequestContext| async move {
                let Path(id) = request.extract::<Path<u64>>().await?;
                Ok::<_, Response>(Json(json!({ "id": id })))
            },
        ))
        .route(Route::get(
            "/users/{user}/orders/{id}",
            |mut request: RequestContext| async move {
                let Path(order) = request.extract::<Path<UserOrder>>().await?;
                Ok::<_, Response>(Json(order))
            },
        ))
        .route(Route::get(
            "/files/{name}",
            |mut request: RequestContext| async move {
                let Path(name) = request.extract::<Path<String>>().await?;
                Ok::<_, Response>(name)
            },
        ))
        .route(Route::get(
            "/search",
            |mut request: RequestContext| async move {
                let Query(search) = request.extract::<Query<Search>>().await?;
                Ok::<_, Response>(Json(search))
            },
        ))
        .route(Route::get(
            "/headers",
            |mut request: RequestContext| async move {
                let headers = request.extract::<HeaderMap>().await?;
                let method = request.extract::<Method>().await?;
                let uri = request.extract::<Uri>().await?;
                let tea = headers
                    .get("x-tea")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                Ok::<_, Response>(Json(
                    json!({ "method": method.as_str(), "uri": uri.to_string(), "tea": tea }),
                ))
            },
        ))
        .route(Route::get(
            "/secret",
            |mut request: RequestContext| async move {
                let ApiKey(key) = request.extract::<ApiKey>().await?;
                Ok::<_, Response>(format!("key {key}"))
            },
        ))
        .route(Route::post(
            "/text",
            |mut request: RequestContext| async move { request.text().await },
        ))
        .route(Route::post(
            "/bytes",
            |mut request: RequestContext| async move {
                let bytes = request.bytes().await?;
                Ok::<_, HttpError>(bytes.to_vec())
            },
        ))
        .route(Route::post(
            "/json",
            |mut request: RequestContext| async move {
                let value: Value = request.json().await?;
                Ok::<_, HttpError>(Json(value))
            },
        ))
        .route(Route::get("/ping", |_: RequestContext| async { "pong" }))
        .route(Route::new(
            Method::HEAD,
            "/ping",
            |_: RequestContext| async { StatusCode::NO_CONTENT.into_response() },
        ))
        .build()
        .expect("a valid graph");
    TestClient::new(app)
}

/// Status and JSON body of `GET path`.
async fn get_json(client: &TestClient, path: &str) -> (u16, Value) {
    let response = client.get(path).send().await;
    (response.status().as_u16(), response.json())
}

fn error_text(body: &Value) -> &str {
    body["error"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error body: {body}"))
}

#[tokio::test]
async fn a_path_parameter_into_a_number() {
    let client = client();
    assert_eq!(
        get_json(&client, "/orders/42").await,
        (200, json!({ "id": 42 }))
    );

    for bad in ["/orders/abc", "/orders/-1", "/orders/1.5"] {
        let (status, body) = get_json(&client, bad).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(
            error_text(&body).starts_with("invalid path parameter"),
            "{bad}: {body}"
        );
    }
}

#[tokio::test]
async fn two_path_parameters_into_a_struct() {
    let client = client();
    assert_eq!(
        get_json(&client, "/users/ada/orders/7").await,
        (200, json!({ "user": "ada", "id": 7 }))
    );
    let (status, body) = get_json(&client, "/users/ada/orders/seven").await;
    assert_eq!(status, 400, "{body}");
    assert!(error_text(&body).starts_with("invalid path parameter"));
}

#[tokio::test]
async fn path_parameters_are_percent_decoded_and_plus_is_literal() {
    let client = client();
    assert_eq!(
        get_json(&client, "/users/ada%20lovelace/orders/7").await.1["user"],
        "ada lovelace"
    );
    assert_eq!(
        get_json(&client, "/users/a+b/orders/1").await.1["user"],
        "a+b"
    );
    assert_eq!(
        get_json(&client, "/users/caf%C3%A9/orders/1").await.1["user"],
        "café"
    );

    let file = client.get("/files/tea%20leaves%2Ftxt").send().await;
    assert_eq!(
        (file.status().as_u16(), file.text()),
        (200, "tea leaves/txt".to_owned())
    );
    let file = client.get("/files/a&b=c").send().await;
    assert_eq!(file.text(), "a&b=c", "& and = are literal in a path");
}

#[tokio::test]
async fn a_query_string_into_a_struct() {
    let client = client();
    assert_eq!(
        get_json(&client, "/search?q=green%20tea&page=2").await,
        (200, json!({ "q": "green tea", "page": 2 }))
    );
    assert_eq!(
        get_json(&client, "/search?q=oolong").await,
        (200, json!({ "q": "oolong", "page": null }))
    );

    let (status, body) = get_json(&client, "/search").await;
    assert_eq!(status, 400, "{body}");
    assert!(
        error_text(&body).starts_with("invalid query string"),
        "{body}"
    );
    assert!(
        error_text(&body).contains("`q`"),
        "names the missing field: {body}"
    );
    let (status, body) = get_json(&client, "/search?q=tea&page=two").await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn axum_core_extractors_run_on_the_request_head() {
    let client = client();
    let response = client
        .get("/headers?x=1")
        .header("x-tea", "sencha")
        .send()
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<Value>(),
        json!({ "method": "GET", "uri": "/headers?x=1", "tea": "sencha" })
    );
}

#[tokio::test]
async fn an_extractor_rejection_is_the_response() {
    let client = client();
    let rejected = client.get("/secret").send().await;
    assert_eq!(rejected.status(), 401);
    assert_eq!(rejected.text(), "missing x-api-key");
    assert_eq!(
        rejected.header("content-type"),
        Some("text/plain; charset=utf-8")
    );

    let accepted = client.get("/secret").header("x-api-key", "k1").send().await;
    assert_eq!(
        (accepted.status().as_u16(), accepted.text()),
        (200, "key k1".to_owned())
    );
}

#[tokio::test]
async fn bodies_as_text_and_bytes() {
    let client = client();
    let text = client.post("/text").body("green tea").send().await;
    assert_eq!(
        (text.status().as_u16(), text.text()),
        (200, "green tea".to_owned())
    );

    let invalid = client
        .post("/text")
        .body(vec![0x67, 0xff, 0xfe])
        .send()
        .await;
    assert_eq!(invalid.status(), 400);
    assert_eq!(
        invalid.json::<Value>(),
        json!({ "error": "the request body is not valid UTF-8" })
    );

    let raw = client
        .post("/bytes")
        .body(vec![0xff, 0x00, 0xfe])
        .send()
        .await;
    assert_eq!(raw.status(), 200);
    assert_eq!(
        raw.bytes().as_ref(),
        [0xff, 0x00, 0xfe],
        "bytes arrive untouched"
    );
}

#[tokio::test]
async fn json_bodies_accept_every_json_media_type() {
    let client = client();
    let post = |content_type: &'static str| {
        client
            .post("/json")
            .header("content-type", content_type)
            .body("{\"tea\":\"matcha\"}")
            .send()
    };
    for accepted in [
        "application/json",
        "application/json; charset=utf-8",
        "application/vnd.api+json",
        "Application/Problem+JSON",
        " application/json ;charset=utf-8",
    ] {
        let response = post(accepted).await;
        assert_eq!(response.status(), 200, "{accepted}: {}", response.text());
        assert_eq!(response.json::<Value>(), json!({ "tea": "matcha" }));
    }
    for refused in [
        "text/json",
        "application/jsonx",
        "text/plain",
        "application/+json",
        "application",
        "json",
        "",
        "application/ json",
    ] {
        assert_eq!(post(refused).await.status(), 415, "{refused}");
    }
}

#[tokio::test]
async fn head_is_served_by_the_get_route_unless_it_has_its_own() {
    let client = client();
    let head = client.request(Method::HEAD, "/orders/42").send().await;
    assert_eq!(head.status(), 200);
    assert_eq!(head.header("content-type"), Some("application/json"));

    let own = client.request(Method::HEAD, "/ping").send().await;
    assert_eq!(own.status(), 204, "an explicit HEAD route wins");

    let no_get = client.request(Method::HEAD, "/text").send().await;
    assert_eq!(no_get.status(), 405);
    assert_eq!(no_get.header("allow"), Some("POST"));
}

#[tokio::test]
async fn a_path_parameter_that_is_not_utf8_is_a_400() {
    let client = client();
    for path in ["/files/tea%FF", "/users/%FF/orders/1"] {
        let response = client.get(path).send().await;
        assert_eq!(response.status(), 400, "{path}: {}", response.text());
        assert!(
            response.json::<Value>()["error"]
                .as_str()
                .is_some_and(|e| e.starts_with("invalid path parameter")),
            "{path}: {}",
            response.text()
        );
    }
}
