//! A request's future, as the server and `App::handle` poll it: the route's run with the
//! request's span entered, a panic caught, the span finished, and the answer handed to the
//! caller's `finish` with the request's place in flight.
//!
//! One future written out rather than `catch_unwind().instrument(..).map(..)` inside an
//! `Either`: each combinator moves the whole future once more when it is built, and the reply
//! once more when it is done, and this future is moved again into hyper's slot.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use pin_project_lite::pin_project;

use green_tea_core::__private::layer::failures::panic_message;

use super::metered::Meter;
use crate::error::HttpError;
use crate::in_flight::Entered;
use crate::response::{IntoReply, Reply};

pin_project! {
    /// See the module's documentation. `F` is the route's run; `M` makes the caller's output
    /// of the reply and the request's place in flight.
    pub(crate) struct DispatchFuture<F, M> {
        #[pin]
        state: State<F>,
        finish: Option<M>,
    }
}

pin_project! {
    #[project = StateProjection]
    enum State<F> {
        /// Answered without running a route: 404, 405, or 503 while closing. Boxed: a
        /// reply (160 bytes) would double the size of every request's future, which is
        /// moved whole into the caller's slot.
        Answered { reply: Option<Box<Reply>> },
        Running {
            #[pin]
            run: F,
            span: tracing::Span,
            // Set only when the span is enabled or the request is metered: the clock is read
            // for them alone.
            started: Option<Instant>,
            in_flight: Option<Entered>,
            // The request's metrics, when the dispatch measures it (feature `metrics`); then
            // `started` is when it was received.
            meter: Option<Meter>,
        },
    }
}

impl<F, M> DispatchFuture<F, M> {
    /// An answer already made, outside flight.
    pub(crate) fn answered(reply: Reply, finish: M) -> Self {
        DispatchFuture {
            state: State::Answered {
                reply: Some(Box::new(reply)),
            },
            finish: Some(finish),
        }
    }

    /// `answer` awaited outside flight (a built-in route that awaits something), its panic
    /// caught like a route's; it opens and measures itself.
    pub(crate) fn outside_flight(answer: F, finish: M) -> Self {
        DispatchFuture {
            state: State::Running {
                run: answer,
                span: tracing::Span::none(),
                started: None,
                in_flight: None,
                meter: None,
            },
            finish: Some(finish),
        }
    }

    /// The future `run` makes, polled in `span`, holding the request's place in flight. (The
    /// future is made inside the answer's own constructor, so that it can be built in place
    /// rather than moved in.)
    #[inline]
    pub(crate) fn running(
        run: impl FnOnce() -> F,
        span: tracing::Span,
        in_flight: Entered,
        meter: Option<(Meter, Instant)>,
        finish: M,
    ) -> Self {
        let (meter, started) = match meter {
            Some((meter, started)) => (Some(meter), Some(started)),
            None => (None, (!span.is_disabled()).then(Instant::now)),
        };
        DispatchFuture {
            state: State::Running {
                run: run(),
                span,
                started,
                in_flight: Some(in_flight),
                meter,
            },
            finish: Some(finish),
        }
    }
}

/// What the caller makes of a reply and the request's place in flight: any such closure, or
/// a type of its own, whose call is then not through a function pointer (the tower
/// `Service`'s future must name it).
pub(crate) trait Finish {
    type Output;

    fn finish(self, reply: Reply, in_flight: Option<Entered>) -> Self::Output;
}

impl<F, O> Finish for F
where
    F: FnOnce(Reply, Option<Entered>) -> O,
{
    type Output = O;

    #[inline]
    fn finish(self, reply: Reply, in_flight: Option<Entered>) -> O {
        self(reply, in_flight)
    }
}

impl<F, M> Future for DispatchFuture<F, M>
where
    F: Future<Output = Reply>,
    M: Finish,
{
    type Output = M::Output;

    // Each arm hands its reply to `finish` itself: a reply carried out of the `match` (as a
    // tuple with its place in flight) is moved once more on the way.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<M::Output> {
        let this = self.project();
        match this.state.project() {
            StateProjection::Answered { reply } => {
                let reply = *reply.take().expect("an answer polled after it was ready");
                let finish = this.finish.take();
                Poll::Ready(
                    finish
                        .expect("an answer polled after it was ready")
                        .finish(reply, None),
                )
            }
            StateProjection::Running {
                run,
                span,
                started,
                in_flight,
                meter,
            } => {
                let polled = {
                    // Entered only when enabled: at INFO, the usual level, a request has no span.
                    let _entered = (!span.is_disabled()).then(|| span.enter());
                    std::panic::catch_unwind(AssertUnwindSafe(|| run.poll(cx)))
                };
                let reply = match polled {
                    Ok(Poll::Pending) => return Poll::Pending,
                    Ok(Poll::Ready(reply)) => reply,
                    Err(panic) => {
                        let message = panic_message(&*panic);
                        span.in_scope(|| tracing::error!(panic = %message, "the request panicked"));
                        HttpError::internal().into_reply()
                    }
                };
                if let (Some(meter), Some(started)) = (meter.take(), *started) {
                    meter.finish(started, reply.status());
                }
                if let Some(started) = started.filter(|_| !span.is_disabled()) {
                    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                    span.record("http.response.status_code", reply.status().as_u16());
                    span.record("micros", micros);
                    span.in_scope(|| tracing::debug!("finished"));
                }
                let finish = this.finish.take();
                Poll::Ready(
                    finish
                        .expect("an answer polled after it was ready")
                        .finish(reply, in_flight.take()),
                )
            }
        }
    }
}
