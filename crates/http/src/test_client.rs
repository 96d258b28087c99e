//! `TestClient`: drive an `App` in-process, without a socket.

use axum_core::body::Body;
use bytes::Bytes;
use futures_util::FutureExt;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::future::Future;

use crate::app::App;
use crate::response::ResponseBody;

/// Sends requests straight into an [`App`]: routing, steps, handlers and error bodies are all
/// the real ones; only the socket is missing.
///
/// ```
/// use green_tea::{App, Json};
/// use green_tea::extract::RequestContext;
/// use green_tea::routing::Route;
/// use green_tea::test::TestClient;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .route(Route::post("/echo", |mut request: RequestContext| async move {
///         let value: serde_json::Value = request.json().await?;
///         Ok::<_, green_tea::HttpError>(Json(value))
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
    ///
    /// # Panics
    ///
    /// If `path` is not a valid request target (a mistake in the test).
    pub fn request(&self, method: Method, path: &str) -> TestRequest {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .expect("a valid request line");
        TestRequest {
            app: self.app.clone(),
            request,
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
    request: Request<Body>,
}

impl std::fmt::Debug for TestRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestRequest")
            .field("app", &self.app)
            .field("method", self.request.method())
            .field("uri", self.request.uri())
            .field("headers", self.request.headers())
            .finish_non_exhaustive()
    }
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
        self.request.headers_mut().append(name, value);
        self
    }

    /// A JSON body, with `content-type: application/json` and its `content-length`.
    pub fn json<T: Serialize + ?Sized>(self, value: &T) -> Self {
        let json = serde_json::to_vec(value).expect("a serializable value");
        let mut this = self.body(json);
        this.request.headers_mut().insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        this
    }

    /// A raw body (set the content type yourself), with its `content-length`, as an HTTP
    /// client sends it: what reads the length before the body (a body-limit layer, green-tea's
    /// own limit) sees what it would see over a connection. A `content-length` header the test
    /// set itself is kept.
    pub fn body(mut self, body: impl Into<Bytes>) -> Self {
        let body = body.into();
        self.request
            .headers_mut()
            .entry(http::header::CONTENT_LENGTH)
            .or_insert_with(|| HeaderValue::from(body.len()));
        *self.request.body_mut() = Body::from(body);
        self
    }

    /// Sends it through the app and reads the whole response.
    ///
    /// # Panics
    ///
    /// If the response body fails while it is read (a stream that ends in an error): a test
    /// never sees a broken body as an empty one.
    pub fn send(self) -> impl Future<Output = TestResponse> + Send {
        // Boxed here: the request's whole path (dispatch, steps, body) is compiled once, in
        // green-tea, not again in every test crate.
        self.send_now().boxed()
    }

    async fn send_now(self) -> TestResponse {
        let response = self.app.handle(self.request).await;
        let (parts, body) = response.into_parts();
        // A test must not read a broken body as an empty one: it fails here, as
        // `TestStream::chunk` does.
        let body = match body.collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(error) => panic!("the response body failed while it was read: {error}"),
        };
        TestResponse {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }

    /// Sends it through the app and returns the response once its head is ready, with its
    /// body unread: read it chunk by chunk with [`TestStream::chunk`], as a client of a
    /// streamed response (server-sent events, a large download) does. Dropping the
    /// `TestStream` drops the body, as a client that goes away does.
    ///
    /// ```
    /// use green_tea::App;
    /// use green_tea::body::Body;
    /// use green_tea::routing::Route;
    /// use green_tea::test::TestClient;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let app = App::builder()
    ///     .route(Route::get("/count", |_| async {
    ///         let parts = ["one ", "two ", "three"].map(Ok::<_, std::convert::Infallible>);
    ///         Body::from_stream(futures_util::stream::iter(parts))
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// let client = TestClient::new(app.clone());
    /// let mut response = client.get("/count").send_streaming().await;
    /// assert_eq!(response.status(), 200);
    /// assert_eq!(response.chunk().await.unwrap(), "one ");
    /// assert_eq!(response.chunk().await.unwrap(), "two ");
    /// assert_eq!(response.chunk().await.unwrap(), "three");
    /// assert_eq!(response.chunk().await, None);
    /// app.close().await.unwrap();
    /// # }
    /// ```
    pub fn send_streaming(self) -> impl Future<Output = TestStream> + Send {
        // Boxed here, as `send` is.
        self.send_streaming_now().boxed()
    }

    async fn send_streaming_now(self) -> TestStream {
        let response = self.app.handle(self.request).await;
        let (parts, body) = response.into_parts();
        TestStream {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }
}

/// A response whose body is read as it comes, from
/// [`TestRequest::send_streaming`].
pub struct TestStream {
    status: StatusCode,
    headers: HeaderMap,
    body: ResponseBody,
}

impl std::fmt::Debug for TestStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestStream")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

impl TestStream {
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

    /// The body's next chunk (data frame) as the app sends it, waiting for it; `None` at the
    /// end of the body, which then lets go of its request as a server does once it has sent
    /// a body whole (`close()` stops waiting for it). Trailers are skipped. A test that may
    /// wait forever should bound it with a timeout.
    ///
    /// # Panics
    ///
    /// If the body fails (its stream returned an error); the message says why.
    pub async fn chunk(&mut self) -> Option<Bytes> {
        loop {
            let Some(frame) = self.body.frame().await else {
                // The body, and the request's place in flight it holds, are done with.
                self.body = ResponseBody::empty();
                return None;
            };
            let frame = frame.unwrap_or_else(|e| panic!("the response body failed: {e}"));
            if let Ok(data) = frame.into_data() {
                return Some(data);
            }
        }
    }

    /// The rest of the body, read to its end.
    ///
    /// # Panics
    ///
    /// If the body fails.
    pub async fn rest(mut self) -> Bytes {
        let mut rest = bytes::BytesMut::new();
        while let Some(chunk) = self.chunk().await {
            rest.extend_from_slice(&chunk);
        }
        rest.freeze()
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

#[cfg(test)]
mod tests {
    use crate::{App, RequestContext, Route};

    use super::TestClient;

    #[tokio::test]
    async fn a_body_is_sent_with_its_length_unless_the_test_set_one() {
        let length = |request: RequestContext| async move {
            let header = request.parts().headers.get(http::header::CONTENT_LENGTH);
            header.map_or("none".to_owned(), |v| v.to_str().unwrap().to_owned())
        };
        let app = App::builder()
            .route(Route::post("/", length))
            .build()
            .unwrap();
        let client = TestClient::new(app);
        assert_eq!(client.post("/").body("hello").send().await.text(), "5");
        let json = client.post("/").json(&[1, 2]).send().await;
        assert_eq!(json.text(), "5"); // `[1,2]`
        // A wrong length, to test what the app does with one: the test's is kept.
        let set = client.post("/").header("content-length", "3").body("hello");
        assert_eq!(set.send().await.text(), "3");
        assert_eq!(client.post("/").send().await.text(), "none");
    }
}
