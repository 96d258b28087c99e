//! Steps that finish: a step's value whose [`Finish`] hook runs after the handler, with the
//! request's [`Outcome`], before the response head is sent: a transaction's commit or
//! rollback, a lock's release, a batch's flush.
//!
//! A route without a finishing step runs as before and pays nothing for them: its entry is
//! chosen at `build()`.

use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http_body::{Body as _, Frame};

use futures_util::FutureExt;
use http::StatusCode;
use smallvec::SmallVec;

use green_tea_core::__private::layer::failures::panic_message;
use green_tea_core::__private::layer::values::AnyValue;
use green_tea_core::{Descriptor, NodeKind, Origin, Problem, TypeInfo};

use crate::error::HttpError;
use crate::response::{IntoReply, Reply, ResponseBody};

/// A step's value that finishes with the request: it is handed back, owned, after the handler
/// has answered (or a later step has rejected the request, or either panicked), with what the
/// request came to, and before the response head is sent. An error it returns replaces the
/// answer: a commit that fails turns the handler's 201 into a JSON 500, never a 201 for a
/// write that did not happen.
///
/// A step says its values finish with `#[step(provides = "tx", finish)]`, or by hand with
/// [`StepFn::finishes`](crate::StepFn::finishes) or
/// [`Step::finishing`](crate::Step::finishing).
///
/// ```
/// use green_tea::HttpError;
/// use green_tea::steps::{Finish, Outcome};
///
/// struct Audit { action: &'static str }
///
/// impl Finish for Audit {
///     async fn finish(self, outcome: &Outcome) -> Result<(), HttpError> {
///         println!("{} -> {}", self.action, outcome.status());
///         Ok(())
///     }
/// }
/// # let _ = Audit { action: "create" };
/// ```
///
/// The value is owned again only if nothing else holds it: a handler that keeps a clone of its
/// `Arc` past its answer (a task it spawned) leaves it unfinishable. Then it is not finished,
/// the request is answered 500 (its outcome could not be made final) and the value drops when
/// its last clone does.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not finish: it does not implement `green_tea::steps::Finish`",
    note = "a step marked `finish` provides values whose types implement `Finish`"
)]
pub trait Finish: Sized + Send + Sync + 'static {
    /// Finishes with `outcome`: commit on success, roll back otherwise. An error answers the
    /// request instead of what the handler answered.
    fn finish(self, outcome: &Outcome) -> impl Future<Output = Result<(), HttpError>> + Send;
}

/// What a request came to, as the finishing steps see it: the status the client gets if every
/// finish succeeds, and why it is not a success when it is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    status: StatusCode,
    end: End,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum End {
    /// The handler answered.
    Answered { error: Option<String> },
    /// A step after the finishing one rejected the request.
    Rejected {
        step: Cow<'static, str>,
        error: Option<String>,
    },
    /// The handler or a step panicked.
    Panicked { message: String },
    /// A finishing step that ran after this one (its finish ran first) failed.
    FinishFailed {
        step: Cow<'static, str>,
        error: String,
    },
}

impl Outcome {
    /// The status the client gets if the rest of the finishes succeed: the handler's, a
    /// rejecting step's, 500 after a panic, or a failed finish's.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// Whether the request succeeded: a status below 400 and nothing panicked or failed.
    /// What a transaction commits on.
    pub fn is_success(&self) -> bool {
        self.status.as_u16() < 400 && matches!(self.end, End::Answered { .. })
    }

    /// The panic's message, if the handler or a step panicked.
    pub fn panic(&self) -> Option<&str> {
        match &self.end {
            End::Panicked { message } => Some(message),
            _ => None,
        }
    }

    /// The step that rejected the request, if one after the finishing step did.
    pub fn rejected_by(&self) -> Option<&str> {
        match &self.end {
            End::Rejected { step, .. } => Some(step),
            _ => None,
        }
    }

    /// The finishing step whose finish failed before this one's, if one did.
    pub fn failed_finish(&self) -> Option<&str> {
        match &self.end {
            End::FinishFailed { step, .. } => Some(step),
            _ => None,
        }
    }

    /// The error the client is told: the `error` of a JSON error answer (an [`HttpError`]'s
    /// message), a failed finish's message; `None` for a success or an answer of another
    /// shape.
    pub fn error(&self) -> Option<&str> {
        match &self.end {
            End::Answered { error } | End::Rejected { error, .. } => error.as_deref(),
            End::FinishFailed { error, .. } => Some(error),
            End::Panicked { .. } => Some("internal server error"),
        }
    }

    /// The handler's answer (its error's body read, if it is an error: see [`error_of`]).
    pub(crate) fn answered(reply: &mut Reply) -> Self {
        Outcome {
            status: reply.status(),
            end: End::Answered {
                error: error_of(reply),
            },
        }
    }

    /// A rejection by `step`.
    pub(crate) fn rejected(step: Cow<'static, str>, reply: &mut Reply) -> Self {
        Outcome {
            status: reply.status(),
            end: End::Rejected {
                error: error_of(reply),
                step,
            },
        }
    }

    /// A panic, answered 500.
    pub(crate) fn panicked(message: String) -> Self {
        Outcome {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            end: End::Panicked { message },
        }
    }

    /// `step`'s finish failed with `error`.
    fn finish_failed(step: Cow<'static, str>, error: &HttpError) -> Self {
        Outcome {
            status: error.status(),
            end: End::FinishFailed {
                step,
                error: error.message().to_owned(),
            },
        }
    }
}

/// The largest error body read for its message: an `HttpError`'s is a few dozen bytes.
const ERROR_BODY_LIMIT: u64 = 16 * 1024;

/// The message of a JSON error answer (`{"error": "..."}`), read only for a failure.
///
/// An answer made through `IntoResponse` (a handler's `Err(HttpError)` by hand, every step's
/// rejection) has its body boxed: it is read only if it is JSON of a known, small size and
/// whole already — polled once, never awaited — and is put back as it was read.
fn error_of(reply: &mut Reply) -> Option<String> {
    if reply.status().as_u16() < 400 {
        return None;
    }
    let json = reply
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !json {
        return None;
    }
    if reply.body().as_bytes().is_none() {
        read_whole(reply.body_mut());
    }
    let bytes = reply.body().as_bytes()?;
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        error: String,
    }
    serde_json::from_slice::<ErrorBody>(bytes)
        .ok()
        .map(|b| b.error)
}

/// Replaces a boxed `body` of a known size up to [`ERROR_BODY_LIMIT`] by its bytes, if its
/// first poll yields all of them; whatever else a poll yields is put back in front of the
/// rest, so the client reads the same body.
fn read_whole(body: &mut ResponseBody) {
    let size = body.size_hint().exact();
    if size.is_none_or(|size| size > ERROR_BODY_LIMIT) {
        return;
    }
    let mut cx = Context::from_waker(Waker::noop());
    let first = match Pin::new(&mut *body).poll_frame(&mut cx) {
        // Pending took nothing.
        Poll::Pending => return,
        Poll::Ready(None) => {
            *body = ResponseBody::empty();
            return;
        }
        Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
            Ok(data) if size == Some(data.len() as u64) => {
                *body = ResponseBody::from_bytes(data);
                return;
            }
            frame => Ok(frame.map_or_else(|trailers| trailers, Frame::data)),
        },
        // The body's error is its answer: the client gets it, as it would have.
        Poll::Ready(Some(Err(error))) => Err(error),
    };
    let rest = std::mem::replace(body, ResponseBody::empty());
    *body = ResponseBody::from(axum_core::body::Body::new(PutBack {
        first: Some(first),
        rest,
    }));
}

/// A body's first frame (or its error), read already, in front of the rest of it.
struct PutBack {
    first: Option<Result<Frame<Bytes>, axum_core::Error>>,
    rest: ResponseBody,
}

impl http_body::Body for PutBack {
    type Data = Bytes;
    type Error = axum_core::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum_core::Error>>> {
        match self.first.take() {
            Some(first) => Poll::Ready(Some(first)),
            None => Pin::new(&mut self.rest).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_none() && self.rest.is_end_stream()
    }

    /// The first frame's bytes and the rest's: a body of a known length keeps its
    /// `content-length`.
    fn size_hint(&self) -> http_body::SizeHint {
        let first = match &self.first {
            Some(Ok(frame)) => frame.data_ref().map_or(0, |d| d.len() as u64),
            _ => 0,
        };
        let rest = self.rest.size_hint();
        let mut hint = http_body::SizeHint::new();
        hint.set_lower(rest.lower().saturating_add(first));
        if let Some(upper) = rest.upper() {
            hint.set_upper(upper.saturating_add(first));
        }
        hint
    }
}

/// A type-erased finish: takes the value back (failing if a clone of it is still held) and
/// starts its finish.
type FinishFn = for<'a> fn(AnyValue, &'a Outcome) -> Result<FinishFuture<'a>, Held>;

type FinishFuture<'a> = Pin<Box<dyn Future<Output = Result<(), HttpError>> + Send + 'a>>;

/// How many other holders a value had when its finish came.
#[derive(Debug)]
struct Held(usize);

fn finish_as<T: Finish>(value: AnyValue, outcome: &Outcome) -> Result<FinishFuture<'_>, Held> {
    // `build()` checked `T` against the type the step's descriptor declares at this index,
    // and every request checks the values against the descriptor (GT0021 otherwise).
    let Ok(value) = value.downcast::<T>() else {
        return Err(Held(0));
    };
    match Arc::try_unwrap(value) {
        Ok(value) => Ok(Box::pin(value.finish(outcome))),
        Err(shared) => Err(Held(Arc::strong_count(&shared) - 1)),
    }
}

/// Which of a step's values finish, and how: what [`Step::finishing`] returns (`#[step(...,
/// finish)]` writes it).
///
/// ```
/// use green_tea::HttpError;
/// use green_tea::steps::{Finish, Finishing, Outcome};
/// struct Tx;
/// impl Finish for Tx {
///     async fn finish(self, _: &Outcome) -> Result<(), HttpError> { Ok(()) }
/// }
/// let finishing = Finishing::none().value::<Tx>(0); // the step's first provided value
/// assert!(!finishing.is_empty());
/// assert!(Finishing::none().is_empty());
/// ```
///
/// [`Step::finishing`]: crate::Step::finishing
#[derive(Clone, Default)]
pub struct Finishing {
    /// The index of each value that finishes, its finish, and the type it is taken as.
    values: SmallVec<[(usize, FinishFn, TypeInfo); 1]>,
}

impl std::fmt::Debug for Finishing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Finishing")
            .field("values", &self.indexes().collect::<Vec<_>>())
            .finish()
    }
}

impl Finishing {
    /// No value finishes (a step's default).
    pub fn none() -> Self {
        Finishing::default()
    }

    /// The step's `index`-th provided value (in the order its keys are declared, from 0), a
    /// `T`, finishes. An index past the step's keys, or a `T` other than its key's type, is a
    /// build error (GT0021).
    pub fn value<T: Finish>(mut self, index: usize) -> Self {
        self.values.retain(|(at, ..)| *at != index);
        self.values
            .push((index, finish_as::<T> as FinishFn, TypeInfo::of::<T>()));
        self.values.sort_by_key(|(at, ..)| *at);
        self
    }

    /// Whether no value finishes.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The indexes of the provided values that finish, in order.
    pub fn indexes(&self) -> impl Iterator<Item = usize> + '_ {
        self.values.iter().map(|(at, ..)| *at)
    }

    /// What `build()` finds wrong with this finishing of the step `descriptor` describes: an
    /// index it does not provide, or a type other than its key's (GT0021).
    pub(crate) fn problems<'a>(
        &'a self,
        descriptor: &'a Descriptor,
    ) -> impl Iterator<Item = Problem> + 'a {
        self.values.iter().filter_map(move |&(index, _, ty)| {
            let provided = descriptor.provides.get(index);
            if provided.is_some_and(|spec| spec.ty == ty) {
                return None;
            }
            Some(Problem::FinishingValue {
                step: Origin {
                    kind: NodeKind::Step,
                    name: descriptor.name.to_string(),
                    location: descriptor.location,
                },
                index,
                ty,
                provides: descriptor.provides.clone(),
            })
        })
    }
}

/// One request's values waiting to finish, in the order their steps ran.
#[derive(Default)]
pub(crate) struct Pending {
    values: SmallVec<[PendingValue; 2]>,
    /// The step that rejected the request, if one did.
    pub(crate) rejected_by: Option<Cow<'static, str>>,
}

struct PendingValue {
    value: AnyValue,
    finish: FinishFn,
    step: Cow<'static, str>,
}

impl Pending {
    /// Keeps (a clone of) the values `finishing` names among `provided`, which `step` just
    /// provided. (`step` is a `&Cow` because each kept value clones it as one: a borrowed
    /// name, `#[step]`'s, costs nothing.)
    #[allow(clippy::ptr_arg)]
    pub(crate) fn keep(
        &mut self,
        step: &Cow<'static, str>,
        finishing: &Finishing,
        provided: &[AnyValue],
    ) {
        for &(index, finish, _) in &finishing.values {
            if let Some(value) = provided.get(index) {
                self.values.push(PendingValue {
                    value: Arc::clone(value),
                    finish,
                    step: step.clone(),
                });
            }
        }
    }

    /// Finishes every kept value, the last kept first, each with the outcome so far; a finish
    /// that fails (or panics, or whose value is still held elsewhere) answers the request
    /// instead, and the values before it see that outcome.
    pub(crate) async fn finish(self, mut reply: Reply, mut outcome: Outcome) -> Reply {
        for pending in self.values.into_iter().rev() {
            let PendingValue {
                value,
                finish,
                step,
            } = pending;
            let span =
                tracing::debug_span!("finish", step = %step, status = outcome.status().as_u16());
            // A finish that panics while making its future is caught too: the finishes
            // before it still run.
            let result = match std::panic::catch_unwind(AssertUnwindSafe(|| {
                finish(value, &outcome)
            })) {
                Err(panic) => {
                    let message = panic_message(&*panic);
                    span.in_scope(|| tracing::error!(panic = %message, "a finish panicked"));
                    Err(HttpError::internal())
                }
                Ok(Ok(finishing)) => match AssertUnwindSafe(finishing).catch_unwind().await {
                    Ok(result) => result,
                    Err(panic) => {
                        let message = panic_message(&*panic);
                        span.in_scope(|| tracing::error!(panic = %message, "a finish panicked"));
                        Err(HttpError::internal())
                    }
                },
                Ok(Err(Held(others))) => {
                    span.in_scope(|| {
                        tracing::error!(
                            others,
                            "a finishing step's value was still held after the request was answered (a clone outlived the handler): it is not finished, and drops with its last clone"
                        )
                    });
                    Err(HttpError::internal())
                }
            };
            match result {
                Ok(()) => span.in_scope(|| tracing::debug!("finished")),
                Err(error) => {
                    span.in_scope(|| {
                        tracing::error!(
                            error = %error.message(),
                            replaced = outcome.status().as_u16(),
                            status = error.status().as_u16(),
                            "a finish failed: its error answers the request"
                        )
                    });
                    outcome = Outcome::finish_failed(step, &error);
                    reply = error.into_reply();
                }
            }
        }
        reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `parts` as one frame each, its size known.
    struct Frames {
        parts: Vec<&'static str>,
        size: u64,
    }

    impl http_body::Body for Frames {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            match self.parts.is_empty() {
                true => Poll::Ready(None),
                false => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                    self.parts.remove(0).as_bytes(),
                ))))),
            }
        }

        fn size_hint(&self) -> http_body::SizeHint {
            http_body::SizeHint::with_exact(self.size)
        }
    }

    fn json_reply(status: u16, parts: Vec<&'static str>) -> Reply {
        let size = parts.iter().map(|p| p.len() as u64).sum();
        let mut reply =
            http::Response::new(ResponseBody::from(axum_core::body::Body::new(Frames {
                parts,
                size,
            })));
        *reply.status_mut() = StatusCode::from_u16(status).unwrap();
        reply.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        reply
    }

    async fn text(reply: Reply) -> String {
        use http_body_util::BodyExt;
        let bytes = reply.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn a_boxed_error_body_read_whole_is_its_message_and_is_sent_the_same() {
        let mut reply = json_reply(409, vec![r#"{"error":"taken"}"#]);
        let outcome = Outcome::answered(&mut reply);
        assert_eq!(outcome.error(), Some("taken"));
        assert_eq!(text(reply).await, r#"{"error":"taken"}"#);
    }

    #[tokio::test]
    async fn a_boxed_error_body_in_frames_is_put_back_as_it_was_read() {
        let mut reply = json_reply(409, vec![r#"{"error":"#, r#""taken"}"#]);
        let outcome = Outcome::answered(&mut reply);
        assert_eq!(outcome.error(), None, "not whole at once: not waited for");
        assert_eq!(text(reply).await, r#"{"error":"taken"}"#);
    }

    #[tokio::test]
    async fn a_success_is_not_read() {
        let mut reply = json_reply(200, vec![r#"{"error":"not one"}"#]);
        assert_eq!(Outcome::answered(&mut reply).error(), None);
        assert!(reply.body().as_bytes().is_none());
    }
}
