//! Giving the request's body to an axum-core `FromRequest` extractor (axum's `Json`, `Form`,
//! `Multipart`, `Bytes`, `String`, `Request`...) under the route's body limit and the body
//! read timeout, as green-tea's own `bytes()` reads it, and its plain-text rejections as
//! green-tea's JSON errors.

use std::future::Future as _;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum_core::body::Body;
use axum_core::response::Response;
use bytes::Bytes;
use http::StatusCode;
use http::header::CONTENT_TYPE;
use http_body::{Frame, SizeHint};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use tokio::time::{Instant, Sleep};

use crate::error::HttpError;

/// What happened to a guarded body, seen by the request after its extractor has run: read
/// (0), past the limit or past the read timeout.
#[derive(Clone, Default)]
pub(crate) struct BodyOutcome(Arc<AtomicU8>);

const TOO_LARGE: u8 = 1;
const TIMED_OUT: u8 = 2;

impl BodyOutcome {
    fn set(&self, outcome: u8) {
        self.0.store(outcome, Ordering::Relaxed);
    }

    /// green-tea's own error for a body that went past the limit or the read timeout, if it
    /// did: what the client is told, whatever the extractor made of it.
    pub(crate) fn error(&self, limit: usize, timeout: Duration) -> Option<HttpError> {
        match self.0.load(Ordering::Relaxed) {
            TOO_LARGE => Some(too_large(limit)),
            TIMED_OUT => Some(timed_out(timeout)),
            _ => None,
        }
    }
}

/// 413, as `RequestContext::bytes` answers it.
pub(crate) fn too_large(limit: usize) -> HttpError {
    HttpError::with_status(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is larger than {limit} bytes"),
    )
}

/// 413 for a body past a limit a layer set, whose size green-tea does not know.
pub(crate) fn too_large_for_a_layer() -> HttpError {
    HttpError::with_status(
        StatusCode::PAYLOAD_TOO_LARGE,
        "the request body is larger than this server accepts",
    )
}

/// 408, as `RequestContext::bytes` answers it.
pub(crate) fn timed_out(timeout: Duration) -> HttpError {
    HttpError::with_status(
        StatusCode::REQUEST_TIMEOUT,
        format!(
            "the request body did not arrive within {} s",
            timeout.as_secs_f64()
        ),
    )
}

/// The body an extractor reads: at most `limit` bytes (past it, http-body-util's
/// `LengthLimitError`, which axum's extractors answer with 413) and arriving by a deadline
/// (the body read timeout, counted from when the extractor is given the body). Either is
/// recorded in the [`BodyOutcome`].
pub(crate) struct GuardedBody {
    inner: Limited<Body>,
    deadline: Instant,
    timeout: Duration,
    /// Armed only once the body makes the reader wait: a body that has arrived pays nothing.
    timer: Option<Pin<Box<Sleep>>>,
    outcome: BodyOutcome,
    done: bool,
}

impl GuardedBody {
    pub(crate) fn new(body: Body, limit: usize, timeout: Duration, outcome: BodyOutcome) -> Self {
        GuardedBody {
            inner: Limited::new(body, limit),
            deadline: Instant::now() + timeout,
            timeout,
            timer: None,
            outcome,
            done: false,
        }
    }
}

/// The read timeout's error in the body's error chain.
#[derive(Debug)]
struct BodyTimedOut(Duration);

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive within {} s",
            self.0.as_secs_f64()
        )
    }
}

impl std::error::Error for BodyTimedOut {}

impl http_body::Body for GuardedBody {
    type Data = Bytes;
    type Error = axum_core::BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Err(error))) => {
                this.done = true;
                if error.is::<LengthLimitError>() {
                    this.outcome.set(TOO_LARGE);
                }
                Poll::Ready(Some(Err(error)))
            }
            Poll::Ready(frame) => Poll::Ready(frame),
            Poll::Pending => {
                let deadline = this.deadline;
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.done = true;
                        this.outcome.set(TIMED_OUT);
                        Poll::Ready(Some(Err(BodyTimedOut(this.timeout).into())))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// An extractor's rejection as the client gets it: axum's rejections are plain text, so a
/// plain-text client error (4xx) becomes green-tea's `{"error": "<the same text>"}` with the
/// same status and headers; any other response (a custom extractor's JSON, a redirect) is
/// answered as it is.
pub(crate) async fn rejection(response: Response) -> Response {
    let plain_text = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/plain"));
    if !response.status().is_client_error() || !plain_text {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // A rejection's body is its message, already in memory.
    let Ok(text) = body.collect().await.map(|c| c.to_bytes()) else {
        return Response::from_parts(parts, Body::empty());
    };
    let message = String::from_utf8_lossy(&text).into_owned();
    let error = axum_core::response::IntoResponse::into_response(HttpError::with_status(
        parts.status,
        message,
    ));
    parts.headers.remove(CONTENT_TYPE);
    parts.headers.remove(http::header::CONTENT_LENGTH);
    let (error_parts, error_body) = error.into_parts();
    parts.headers.extend(error_parts.headers);
    Response::from_parts(parts, error_body)
}
