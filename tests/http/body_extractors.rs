//! axum-core body extractors (`FromRequest`) as a `#[route]` handler's last extractor: axum's
//! `Json`, `Form`, `Multipart`, `Bytes`, `String` and `Request`, held to the route's body limit
//! and the body read timeout; their rejections as green-tea's JSON errors; `#[body] Vec<u8>`
//! as the raw body; and the request's context as a handler parameter.

use crate::support;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Form;
use axum::body::{Body, Bytes};
use axum::extract::multipart::{Multipart, MultipartError};
use axum::extract::{Query as AxumQuery, Request};
use axum::http::{HeaderMap, Method, StatusCode};
use green_tea::prelude::*;
use green_tea::serve::Limits;
use green_tea::test::TestClient;
use http_body_util::{BodyExt, Full};
use serde::Deserialize;
use serde_json::{Value, json};
use support::http::{Server, http1_client, within};

#[derive(Debug, Deserialize, serde::Serialize)]
struct Signup {
    name: String,
    age: u8,
}

#[derive(Deserialize)]
struct Page {
    page: u32,
}

/// One multipart field read whole: its name, file name and bytes.
type Field = (String, Option<String>, Bytes);

async fn fields(mut multipart: Multipart) -> Result<Vec<Field>, MultipartError> {
    let mut fields = Vec::new();
    while let Some(field) = multipart.next_field().await? {
        let name = field.name().unwrap_or_default().to_owned();
        let file = field.file_name().map(str::to_owned);
        fields.push((name, file, field.bytes().await?));
    }
    Ok(fields)
}

struct Extract;

#[route("/x")]
impl Extract {
    #[post("/json/{id}")]
    async fn json(
        Path(id): Path<u32>,
        AxumQuery(page): AxumQuery<Page>,
        #[needs("greeting")] greeting: &String,
        axum::Json(signup): axum::Json<Signup>,
    ) -> Json<Value> {
        Json(json!({ "id": id, "page": page.page, "greeting": greeting, "name": signup.name }))
    }

    #[post("/form")]
    async fn form(Form(signup): Form<Signup>) -> Json<Signup> {
        Json(signup)
    }

    #[post("/bytes", body_limit = 8)]
    async fn bytes(body: Bytes) -> String {
        format!("{} bytes", body.len())
    }

    #[post("/string")]
    async fn string(headers: HeaderMap, body: String) -> String {
        let kind = headers.get("x-kind").and_then(|v| v.to_str().ok());
        format!("{}: {body}", kind.unwrap_or("none"))
    }

    #[post("/request")]
    async fn request(request: Request) -> Result<String, HttpError> {
        let method = request.method().clone();
        let body = request
            .into_body()
            .collect()
            .await
            .map_err(|e| HttpError::bad_request(e.to_string()))?;
        Ok(format!("{method} {}", body.to_bytes().len()))
    }

    #[post("/raw")]
    async fn raw(#[body] body: Vec<u8>) -> String {
        format!("{body:?}")
    }

    #[post("/upload", body_limit = 64 * 1024)]
    async fn upload(multipart: Multipart) -> Result<Json<Value>, HttpError> {
        // The handler reads the fields: a broken body fails here, and says why.
        let fields = fields(multipart)
            .await
            .map_err(|error| HttpError::with_status(error.status(), error.body_text()))?;
        let fields: Vec<Value> = fields
            .into_iter()
            .map(|(name, file, bytes)| {
                json!({ "name": name, "file": file, "text": String::from_utf8_lossy(&bytes) })
            })
            .collect();
        Ok(Json(json!(fields)))
    }
}

fn app() -> App {
    App::builder()
        .value("greeting", "hello".to_owned())
        .routes(Extract::routes())
        .build()
        .unwrap()
}

const BOUNDARY: &str = "green-tea-boundary";

/// A multipart body written out by hand: a text field and a file.
fn multipart_body() -> String {
    format!(
        "--{BOUNDARY}\r\n\
         Content-Disposition: form-data; name=\"title\"\r\n\
         \r\n\
         green tea\r\n\
         --{BOUNDARY}\r\n\
         Content-Disposition: form-data; name=\"notes\"; filename=\"notes.txt\"\r\n\
         Content-Type: text/plain\r\n\
         \r\n\
         steep for 3 minutes\nat 80 degrees\r\n\
         --{BOUNDARY}--\r\n"
    )
}

fn multipart_type() -> String {
    format!("multipart/form-data; boundary={BOUNDARY}")
}

fn expected_fields() -> Value {
    json!([
        { "name": "title", "file": null, "text": "green tea" },
        { "name": "notes", "file": "notes.txt", "text": "steep for 3 minutes\nat 80 degrees" },
    ])
}

#[tokio::test]
async fn axum_json_as_the_last_extractor_after_head_extractors_and_before_needs() {
    let client = TestClient::new(app());
    let response = client
        .post("/x/json/7?page=2")
        .json(&json!({ "name": "ada", "age": 36 }))
        .send()
        .await;
    assert_eq!(response.status(), 200, "{}", response.text());
    assert_eq!(
        response.json::<Value>(),
        json!({ "id": 7, "page": 2, "greeting": "hello", "name": "ada" })
    );
}

#[tokio::test]
async fn axum_json_rejections_are_green_tea_json_errors_with_axum_status() {
    let client = TestClient::new(app());
    let malformed = client
        .post("/x/json/7?page=2")
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await;
    assert_eq!(malformed.status(), 400);
    assert_eq!(malformed.header("content-type"), Some("application/json"));
    let error = malformed.json::<Value>()["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        error.starts_with("Failed to parse the request body as JSON"),
        "{error}"
    );

    let wrong_type = client
        .post("/x/json/7?page=2")
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await;
    assert_eq!(wrong_type.status(), 415);
    assert!(wrong_type.json::<Value>()["error"].is_string());
}

#[tokio::test]
async fn axum_form_reads_the_body_and_a_malformed_form_is_a_json_422() {
    let client = TestClient::new(app());
    let good = client
        .post("/x/form")
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=ada+lovelace&age=36")
        .send()
        .await;
    assert_eq!(good.status(), 200, "{}", good.text());
    assert_eq!(
        good.json::<Value>(),
        json!({ "name": "ada lovelace", "age": 36 })
    );

    let malformed = client
        .post("/x/form")
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=ada&age=very+old")
        .send()
        .await;
    assert_eq!(malformed.status(), 422);
    assert_eq!(malformed.header("content-type"), Some("application/json"));
    let error = malformed.json::<Value>()["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        error.starts_with("Failed to deserialize form body"),
        "{error}"
    );
    assert!(error.contains("age"), "{error}");

    let not_a_form = client.post("/x/form").body("name=ada&age=36").send().await;
    assert_eq!(not_a_form.status(), 415);
    assert!(not_a_form.json::<Value>()["error"].is_string());
}

#[tokio::test]
async fn bytes_string_and_request_get_the_raw_body() {
    let client = TestClient::new(app());
    assert_eq!(
        client.post("/x/bytes").body("12345").send().await.text(),
        "5 bytes"
    );
    let text = client
        .post("/x/string")
        .header("x-kind", "note")
        .body("tea")
        .send()
        .await;
    assert_eq!(text.text(), "note: tea");
    assert_eq!(
        client.post("/x/request").body("abc").send().await.text(),
        "POST 3"
    );
    let not_utf8 = client.post("/x/string").body(vec![0xff, 0xfe]).send().await;
    assert_eq!(not_utf8.status(), 400);
    assert!(not_utf8.json::<Value>()["error"].is_string());
}

#[tokio::test]
async fn body_vec_u8_is_the_raw_body_not_a_json_array() {
    let client = TestClient::new(app());
    let response = client.post("/x/raw").body("AB").send().await;
    assert_eq!(response.text(), "[65, 66]");
}

/// A body of `chunks` streamed without a length, as a chunked upload arrives.
fn streamed(chunks: &[&'static str]) -> Body {
    let frames: Vec<Result<Bytes, Infallible>> = chunks
        .iter()
        .map(|c| Ok(Bytes::from_static(c.as_bytes())))
        .collect();
    Body::from_stream(futures_util::stream::iter(frames))
}

fn post(path: &str, content_type: &str, body: Body) -> axum::http::Request<Body> {
    axum::http::Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("content-type", content_type)
        .body(body)
        .unwrap()
}

async fn json_of(reply: green_tea::response::Reply) -> (StatusCode, Option<String>, Value) {
    let status = reply.status();
    let content_type = reply
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = reply.into_body().collect().await.unwrap().to_bytes();
    let value = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    (status, content_type, value)
}

#[tokio::test]
async fn a_body_past_the_limit_is_green_tea_413_announced_or_streamed() {
    let app = app();
    let client = TestClient::new(app.clone());
    // Announced (`content-length`): refused before the extractor runs.
    let announced = client.post("/x/bytes").body("123456789").send().await;
    assert_eq!(announced.status(), 413);
    assert_eq!(
        announced.json::<Value>(),
        json!({ "error": "the request body is larger than 8 bytes" })
    );
    // Streamed: axum's `Bytes` meets the limit while reading, and the client still gets
    // green-tea's JSON 413, not axum's plain-text one.
    let reply = app
        .handle(post(
            "/x/bytes",
            "application/octet-stream",
            streamed(&["12345", "6789"]),
        ))
        .await;
    let (status, content_type, body) = json_of(reply).await;
    assert_eq!(status, 413);
    assert_eq!(content_type.as_deref(), Some("application/json"));
    assert_eq!(
        body,
        json!({ "error": "the request body is larger than 8 bytes" })
    );
    // Within the limit, streamed: read whole.
    let reply = app
        .handle(post(
            "/x/bytes",
            "application/octet-stream",
            streamed(&["1234", "5678"]),
        ))
        .await;
    let body = reply.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(body, "8 bytes");
}

#[tokio::test]
async fn a_route_limit_past_axums_default_of_2_mb_holds() {
    let app = App::builder()
        .body_limit(3 * 1024 * 1024)
        .routes(Big::routes())
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let body = vec![b'x'; 2 * 1024 * 1024 + 10];
    let response = client.post("/big").body(body).send().await;
    assert_eq!(response.text(), "2097162 bytes");
}

struct Big;

#[route("/big")]
impl Big {
    #[post("/")]
    async fn take(body: Bytes) -> String {
        format!("{} bytes", body.len())
    }
}

#[tokio::test(start_paused = true)]
async fn a_body_that_stops_arriving_is_green_tea_408() {
    let mut limits = Limits::default();
    limits.body_read_timeout = Duration::from_secs(5);
    let app = App::builder()
        .limits(limits)
        .routes(Extract::routes())
        .value("greeting", "hello".to_owned())
        .build()
        .unwrap();
    // One chunk, then nothing: the client stalls.
    let stalled = futures_util::StreamExt::chain(
        futures_util::stream::iter([Ok::<_, Infallible>(Bytes::from_static(b"name=a"))]),
        futures_util::stream::pending(),
    );
    let request = post(
        "/x/form",
        "application/x-www-form-urlencoded",
        Body::from_stream(stalled),
    );
    let (status, _, body) = json_of(app.handle(request).await).await;
    assert_eq!(status, 408);
    assert_eq!(
        body,
        json!({ "error": "the request body did not arrive within 5 s" })
    );
}

#[tokio::test]
async fn a_multipart_upload_through_test_client() {
    let client = TestClient::new(app());
    let response = client
        .post("/x/upload")
        .header("content-type", &multipart_type())
        .body(multipart_body())
        .send()
        .await;
    assert_eq!(response.status(), 200, "{}", response.text());
    assert_eq!(response.json::<Value>(), expected_fields());
}

#[tokio::test]
async fn a_multipart_upload_over_loopback_http() {
    let app = app();
    let server = Server::start(&app).await;
    let request = axum::http::Request::builder()
        .method(Method::POST)
        .uri(server.url("/x/upload"))
        .header("content-type", multipart_type())
        .body(Full::new(Bytes::from(multipart_body())))
        .unwrap();
    let response = within("the upload", http1_client().request(request))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        expected_fields()
    );
    server.stop().await.unwrap();
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_malformed_multipart_body_is_a_json_400() {
    let client = TestClient::new(app());
    // No boundary: axum's `Multipart` rejects the request, as green-tea's JSON error.
    let no_boundary = client
        .post("/x/upload")
        .header("content-type", "multipart/form-data")
        .body(multipart_body())
        .send()
        .await;
    assert_eq!(no_boundary.status(), 400);
    assert_eq!(no_boundary.header("content-type"), Some("application/json"));
    let error = no_boundary.json::<Value>()["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("boundary"), "{error}");

    // A body cut off inside a field: the handler's read fails, and it answers with the
    // error's status and text.
    let cut = multipart_body();
    let cut = &cut[..cut.len() / 2];
    let broken = client
        .post("/x/upload")
        .header("content-type", &multipart_type())
        .body(cut.to_owned())
        .send()
        .await;
    assert_eq!(broken.status(), 400);
    assert!(broken.json::<Value>()["error"].is_string());
}

#[tokio::test]
async fn a_streamed_multipart_body_past_the_limit_fails_the_read_with_413() {
    // `Multipart` hands the body on: the limit holds while the handler reads the fields.
    let app = App::builder()
        .route(Route::post(
            "/small",
            |mut request: RequestContext| async move {
                let multipart: Multipart = request.extract_body().await?;
                let fields = fields(multipart)
                    .await
                    .map_err(|error| HttpError::with_status(error.status(), error.body_text()))?;
                Ok::<_, green_tea::response::Response>(format!("{} fields", fields.len()))
            },
        ))
        .body_limit(64)
        .build()
        .unwrap();
    let body = multipart_body();
    let (head, tail) = body.split_at(40);
    let chunks: Vec<&'static str> = vec![head.to_owned().leak(), tail.to_owned().leak()];
    let reply = app
        .handle(post("/small", &multipart_type(), streamed(&chunks)))
        .await;
    let (status, _, body) = json_of(reply).await;
    assert_eq!(status, 413);
    assert_eq!(body, json!({ "error": "Request payload is too large" }));
}

/// A task the handler spawns, which outlives its response.
struct Jobs;

#[route("/jobs")]
impl Jobs {
    #[post("/{name}")]
    async fn start(
        Path(name): Path<String>,
        #[needs("log")] log: &Arc<Mutex<Vec<String>>>,
        request: RequestContext,
    ) -> (StatusCode, String) {
        let guard = request.keep_in_flight();
        let log = Arc::clone(log);
        let reply = format!("{name} accepted");
        tokio::spawn(async move {
            guard.closing().await;
            log.lock().unwrap().push(format!("{name} finished"));
            drop(guard);
        });
        (StatusCode::ACCEPTED, reply)
    }

    #[post("/echo/{id}")]
    async fn echo(
        Path(id): Path<u32>,
        mut request: RequestContext,
        #[needs("greeting")] greeting: &String,
    ) -> Result<String, HttpError> {
        let body: Value = request.json().await?;
        Ok(format!("{greeting} {id}: {body}"))
    }
}

#[tokio::test]
async fn a_route_handler_takes_the_context_and_keeps_the_request_in_flight() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let app = App::builder()
        .value("log", Arc::clone(&log))
        .value("greeting", "hi".to_owned())
        .routes(Jobs::routes())
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let response = client.post("/jobs/brew").send().await;
    assert_eq!(response.status(), 202);
    assert_eq!(response.text(), "brew accepted");
    // The response is out, the task still holds the request in flight: close() waits for it.
    within("close", app.close()).await.unwrap();
    assert_eq!(*log.lock().unwrap(), ["brew finished"]);
}

#[tokio::test]
async fn the_context_reads_the_body_with_extractors_and_needs_beside_it() {
    let app = App::builder()
        .value("log", Arc::new(Mutex::new(Vec::<String>::new())))
        .value("greeting", "hi".to_owned())
        .routes(Jobs::routes())
        .build()
        .unwrap();
    let client = TestClient::new(app);
    let response = client
        .post("/jobs/echo/3")
        .json(&json!({ "tea": true }))
        .send()
        .await;
    assert_eq!(response.text(), "hi 3: {\"tea\":true}");
    let wrong = client.post("/jobs/echo/3").body("{}").send().await;
    assert_eq!(wrong.status(), 415, "the context's own JSON read");
}

/// A body extractor of its own: the body must say "tea"; otherwise a plain-text 401 with a
/// challenge header, or (for "coffee") a redirect.
struct Tea;

impl<S: Send + Sync> axum::extract::FromRequest<S> for Tea {
    type Rejection = axum::response::Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        use axum::response::IntoResponse;
        let body = String::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        match body.as_str() {
            "tea" => Ok(Tea),
            "coffee" => Err((StatusCode::SEE_OTHER, [("location", "/tea")]).into_response()),
            _ => Err((
                StatusCode::UNAUTHORIZED,
                [("www-authenticate", "Tea")],
                "tea drinkers only",
            )
                .into_response()),
        }
    }
}

struct Custom;

#[route("/custom")]
impl Custom {
    #[post("/")]
    async fn take(_tea: Tea) -> &'static str {
        "welcome"
    }
}

#[tokio::test]
async fn a_plain_text_rejection_becomes_json_keeping_its_headers_and_others_pass_as_they_are() {
    let app = App::builder().routes(Custom::routes()).build().unwrap();
    let client = TestClient::new(app);
    assert_eq!(
        client.post("/custom").body("tea").send().await.text(),
        "welcome"
    );
    let refused = client.post("/custom").body("water").send().await;
    assert_eq!(refused.status(), 401);
    assert_eq!(refused.header("www-authenticate"), Some("Tea"));
    assert_eq!(refused.header("content-type"), Some("application/json"));
    assert_eq!(
        refused.json::<Value>(),
        json!({ "error": "tea drinkers only" })
    );
    let redirected = client.post("/custom").body("coffee").send().await;
    assert_eq!(redirected.status(), 303);
    assert_eq!(redirected.header("location"), Some("/tea"));
    assert_eq!(redirected.text(), "");
}
