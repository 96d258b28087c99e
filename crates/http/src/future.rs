//! The futures a step and a handler return. A step's is ready at once (a synchronous step,
//! nothing allocated) or boxed (an asynchronous one, one allocation per call). A handler's is
//! its own type ([`Handler::Future`](crate::Handler::Future)), held unboxed inside the route's
//! one future per request.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum_core::response::{IntoResponse, Response};
use futures_util::future::BoxFuture;

use green_tea_core::Provided;

use crate::response::{Reply, reply_of};

/// A value now, or a boxed future of one.
pub(crate) enum MaybeBoxed<'a, T> {
    Ready(Option<T>),
    Boxed(BoxFuture<'a, T>),
}

impl<'a, T> MaybeBoxed<'a, T> {
    /// The value now, or the future of it: awaited by itself, only the box is held across the
    /// wait, not room for the value too.
    pub(crate) fn now_or_later(self) -> Result<T, BoxFuture<'a, T>> {
        match self {
            MaybeBoxed::Ready(Some(value)) => Ok(value),
            MaybeBoxed::Ready(None) => unreachable!("a ready future is taken once"),
            MaybeBoxed::Boxed(future) => Err(future),
        }
    }
}

impl<T: Unpin> Future for MaybeBoxed<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match self.get_mut() {
            MaybeBoxed::Ready(value) => Poll::Ready(
                value
                    .take()
                    .expect("a ready step or handler future is polled once"),
            ),
            MaybeBoxed::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

/// What a step's run returns: its values, or the response that rejects the request.
pub type StepResult = Result<Provided, Response>;

/// The future of one step's run (see [`Step::run`](crate::Step::run)).
///
/// A step that never waits answers with [`StepFuture::ready`], which costs nothing; one that
/// waits wraps its work with [`StepFuture::new`], which boxes it once.
#[must_use = "a future does nothing unless awaited"]
pub struct StepFuture<'a>(pub(crate) MaybeBoxed<'a, StepResult>);

impl<'a> StepFuture<'a> {
    /// The step's outcome, now.
    pub fn ready(result: StepResult) -> Self {
        StepFuture(MaybeBoxed::Ready(Some(result)))
    }

    /// The step's outcome, later: `future` is boxed once.
    pub fn new(future: impl Future<Output = StepResult> + Send + 'a) -> Self {
        StepFuture(MaybeBoxed::Boxed(Box::pin(future)))
    }
}

impl Future for StepFuture<'_> {
    type Output = StepResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<StepResult> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl std::fmt::Debug for StepFuture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            MaybeBoxed::Ready(_) => "StepFuture::Ready",
            MaybeBoxed::Boxed(_) => "StepFuture::Boxed",
        })
    }
}

pin_project_lite::pin_project! {
    /// The future of a closure handler's call (its [`Handler::Future`](crate::Handler::Future)):
    /// the closure's own future, its output made a reply. Nothing boxed.
    #[must_use = "a future does nothing unless awaited"]
    pub struct IntoReplyFuture<F> {
        #[pin]
        future: F,
    }
}

impl<F> IntoReplyFuture<F> {
    pub(crate) fn new(future: F) -> Self {
        IntoReplyFuture { future }
    }
}

impl<F> Future for IntoReplyFuture<F>
where
    F: Future,
    F::Output: IntoResponse,
{
    type Output = Reply;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply> {
        self.project()
            .future
            .poll(cx)
            .map(|answer| reply_of(answer.into_response()))
    }
}

impl<F> std::fmt::Debug for IntoReplyFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IntoReplyFuture")
    }
}
