//! `HttpError` (a response with a status and a JSON body) and the crate's top-level `Error`.

use std::borrow::Cow;
use std::fmt;

use axum_core::response::{IntoResponse, Response};
use http::header::{HeaderName, HeaderValue};
use http::{HeaderMap, StatusCode};

use green_tea_core::{BuildError, CloseError, ProvideError};

use crate::response::{IntoReply, Reply, ResponseBody, bytes_reply};

/// An error that is an HTTP response: a status and a message, rendered as
/// `{"error": "<message>"}`.
///
/// A step returns one to reject a request; a handler returns one (usually through `?`).
///
/// ```
/// use green_tea::HttpError;
/// let err = HttpError::new(503, "billing is unavailable").with_header("retry-after", "30");
/// assert_eq!(err.status().as_u16(), 503);
/// assert_eq!(err.message(), "billing is unavailable");
/// ```
#[derive(Clone, Debug)]
pub struct HttpError {
    status: StatusCode,
    message: Cow<'static, str>,
    /// Boxed: most errors carry no extra header, and `Result<_, HttpError>` stays small.
    headers: Option<Box<HeaderMap>>,
}

impl HttpError {
    /// An error with `status` (an invalid code becomes 500) and `message`.
    pub fn new(status: u16, message: impl Into<Cow<'static, str>>) -> Self {
        HttpError {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            message: message.into(),
            headers: None,
        }
    }

    /// An error with a typed status.
    pub fn with_status(status: StatusCode, message: impl Into<Cow<'static, str>>) -> Self {
        HttpError {
            status,
            message: message.into(),
            headers: None,
        }
    }

    /// 400 Bad Request.
    pub fn bad_request(message: impl Into<Cow<'static, str>>) -> Self {
        Self::with_status(StatusCode::BAD_REQUEST, message)
    }

    /// 401 Unauthorized.
    pub fn unauthorized(message: impl Into<Cow<'static, str>>) -> Self {
        Self::with_status(StatusCode::UNAUTHORIZED, message)
    }

    /// 403 Forbidden.
    pub fn forbidden(message: impl Into<Cow<'static, str>>) -> Self {
        Self::with_status(StatusCode::FORBIDDEN, message)
    }

    /// 404 Not Found.
    pub fn not_found(message: impl Into<Cow<'static, str>>) -> Self {
        Self::with_status(StatusCode::NOT_FOUND, message)
    }

    /// 500 Internal Server Error with a generic message: details belong in the log, not in
    /// the response.
    pub fn internal() -> Self {
        Self::with_status(StatusCode::INTERNAL_SERVER_ERROR, "internal server error")
    }

    /// 503 Service Unavailable.
    pub fn unavailable(message: impl Into<Cow<'static, str>>) -> Self {
        Self::with_status(StatusCode::SERVICE_UNAVAILABLE, message)
    }

    /// Adds a response header (such as `Retry-After`). An invalid name or value is dropped
    /// with a warning rather than failing the response.
    pub fn with_header(mut self, name: &str, value: impl AsRef<str>) -> Self {
        match (
            HeaderName::try_from(name),
            HeaderValue::try_from(value.as_ref()),
        ) {
            (Ok(name), Ok(value)) => {
                self.headers
                    .get_or_insert_with(Box::default)
                    .insert(name, value);
            }
            _ => tracing::warn!(header = name, "dropped an invalid header on an HttpError"),
        }
        self
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The extra header named `name`, if it was set.
    pub fn header(&self, name: &str) -> Option<&HeaderValue> {
        self.headers.as_ref().and_then(|h| h.get(name))
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for HttpError {}

/// The JSON body of an error: `{"error": "<message>"}`.
#[derive(serde::Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl IntoReply for HttpError {
    fn into_reply(self) -> Reply {
        let mut body = Vec::with_capacity(self.message.len() + 16);
        // A string always serializes.
        let _ = serde_json::to_writer(
            &mut body,
            &ErrorBody {
                error: &self.message,
            },
        );
        let mut reply = bytes_reply(ResponseBody::from_vec(body), "application/json");
        *reply.status_mut() = self.status;
        if let Some(headers) = self.headers {
            reply.headers_mut().extend(*headers);
        }
        reply
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        self.into_reply().map(axum_core::body::Body::new)
    }
}

impl From<HttpError> for Reply {
    fn from(error: HttpError) -> Self {
        error.into_reply()
    }
}

/// So that `?` on an `HttpError` works in a handler that returns `Result<_, Response>` (the
/// rejection type of [`RequestContext::extract`](crate::RequestContext::extract)).
impl From<HttpError> for Response {
    fn from(error: HttpError) -> Self {
        error.into_response()
    }
}

/// A provider that failed to build is the server's problem (500, details only in the log);
/// a closed app is unavailable (503).
impl From<ProvideError> for HttpError {
    fn from(error: ProvideError) -> Self {
        match error {
            ProvideError::Closed => HttpError::unavailable("the app is shutting down"),
            other => {
                tracing::error!(error = %other, "a provider needed by this request is unavailable");
                HttpError::internal()
            }
        }
    }
}

/// Anything that can go wrong in an app's life: building it, serving it, closing it.
///
/// Its `Debug` is its `Display`, so `fn main() -> Result<(), green_tea::Error>` prints the
/// readable report (a build error lists every problem) rather than a dump of the data.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The graph is invalid.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A provider could not be built (from `start()` or `get()`).
    #[error(transparent)]
    Provide(#[from] ProvideError),
    /// Closing did not go cleanly.
    #[error(transparent)]
    Close(#[from] CloseError),
    /// Binding or accepting failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
