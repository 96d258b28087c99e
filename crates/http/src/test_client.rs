//! `TestClient`: drive an `App` in-process, without a socket.

use axum_core::body::Body;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::app::App;

/// Sends requests straight into an [`App`]: routing, steps, handlers and error bodies are all
/// the real ones; only the socket is missing.
///
/// ```
/// use green_tea::http::{App, Json, RequestContext, Route, TestClient};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .route(Route::post("/echo", |mut request: RequestContext| async move {
///         let value: serde_json::Value = request.json().await?;
///         Ok::<_, green_tea::http::HttpError>(Json(value))
///     }))
///     .build()
///     .unwrap();
/// let client = TestClient::new(app.clone());
/// let response = client.post("/echo").json(&serde_json::json!({ "ok": true })).send().await;
/// assert_eq!(response.status(), 200);
/// assert_eq!(response.json::<serde_json::Value>()["ok"], true);
/// assert_eq!(client.get("/nope").send().await.status(), 404);
/// app.close().await.unwrap();
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct TestClient {
    app: App,
}

impl TestClient {
    /// A client of `app`.
    pub fn new(app: App) -> Self {
        TestClient { app }
    }

    /// A request with any method.
    pub fn request(&self, method: Method, path: &str) -> TestRequest {
        TestRequest {
            app: self.app.clone(),
            method,
            path: path.to_owned(),
            headers: HeaderMap::new(),
            body: Bytes::new(),
        }
    }

    /// A `GET` request.
    pub fn get(&self, path: &str) -> TestRequest {
        self.request(Method::GET, path)
    }

    /// A `POST` request.
    pub fn post(&self, path: &str) -> TestRequest {
        self.request(Method::POST, path)
    }

    /// A `PUT` request.
    pub fn put(&self, path: &str) -> TestRequest {
        self.request(Method::PUT, path)
    }

    /// A `PATCH` request.
    pub fn patch(&self, path: &str) -> TestRequest {
        self.request(Method::PATCH, path)
    }

    /// A `DELETE` request.
    pub fn delete(&self, path: &str) -> TestRequest {
        self.request(Method::DELETE, path)
    }
}

/// A request being put together; [`send`](Self::send) it.
#[must_use = "a request does nothing until `send()`"]
pub struct TestRequest {
    app: App,
    method: Method,
    path: String,
    headers: HeaderMap,
    body: Bytes,
}

impl TestRequest {
    /// Adds a header.
    ///
    /// # Panics
    ///
    /// If the name or value is not valid in HTTP (a mistake in the test).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        let name = HeaderName::try_from(name).expect("a valid header name");
        let value = HeaderValue::try_from(value).expect("a valid header value");
        self.headers.append(name, value);
        self
    }

    /// A JSON body, with `content-type: application/json`.
    pub fn json<T: Serialize + ?Sized>(mut self, value: &T) -> Self {
        self.body = serde_json::to_vec(value)
            .expect("a serializable value")
            .into();
        self.headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        self
    }

    /// A raw body (set the content type yourself).
    pub fn body(mut self, body: impl Into<Bytes>) -> Self {
        self.body = body.into();
        self
    }

    /// Sends it through the app and reads the whole response.
    pub async fn send(self) -> TestResponse {
        let mut request = Request::builder()
            .method(self.method)
            .uri(&self.path)
            .body(Body::from(self.body))
            .expect("a valid request line");
        *request.headers_mut() = self.headers;
        let response = self.app.handle(request).await;
        let (parts, body) = response.into_parts();
        let body = body
            .collect()
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default();
        TestResponse {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }
}

/// A whole response.
#[derive(Clone, Debug)]
pub struct TestResponse {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl TestResponse {
    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// One header as text, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body.
    pub fn bytes(&self) -> &Bytes {
        &self.body
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    ///
    /// # Panics
    ///
    /// If it is not a `T`; the message shows the body.
    pub fn json<T: DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("the body is not the JSON expected ({e}): {}", self.text()))
    }
}
