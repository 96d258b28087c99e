//! The futures a step and a handler return: ready at once (a synchronous step or handler,
//! nothing allocated), or a boxed future (an asynchronous one, one allocation per call). Which
//! one is decided where it is made; the type that holds it is the same.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum_core::response::Response;
use futures_util::future::BoxFuture;

use green_tea_core::Provided;

/// A value now, or a boxed future of one.
enum MaybeBoxed<'a, T> {
    Ready(Option<T>),
    Boxed(BoxFuture<'a, T>),
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
pub struct StepFuture<'a>(MaybeBoxed<'a, StepResult>);

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

/// The future of one handler's call (see [`Handler::call`](crate::Handler::call)): a response
/// now ([`HandlerFuture::ready`], nothing allocated) or later ([`HandlerFuture::new`], boxed
/// once).
#[must_use = "a future does nothing unless awaited"]
pub struct HandlerFuture(MaybeBoxed<'static, Response>);

impl HandlerFuture {
    /// The response, now.
    pub fn ready(response: Response) -> Self {
        HandlerFuture(MaybeBoxed::Ready(Some(response)))
    }

    /// The response, later: `future` is boxed once.
    pub fn new(future: impl Future<Output = Response> + Send + 'static) -> Self {
        HandlerFuture(MaybeBoxed::Boxed(Box::pin(future)))
    }
}

impl Future for HandlerFuture {
    type Output = Response;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl std::fmt::Debug for HandlerFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            MaybeBoxed::Ready(_) => "HandlerFuture::Ready",
            MaybeBoxed::Boxed(_) => "HandlerFuture::Boxed",
        })
    }
}
