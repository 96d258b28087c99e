//! A route's run, compiled for its handler's type: its steps, then its handler, in one boxed
//! future per request. The request's context and the handler's future live inside that one
//! allocation; nothing else about a request is boxed unless it waits on a step or a layer.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};

use pin_project_lite::pin_project;
use tracing::Instrument;

use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::failures::panic_message;
use green_tea_core::__private::layer::values::AnyValue;

use super::handler::Handler;
use crate::client_addr::ClientAddr;
use crate::context::RequestContext;
use crate::error::HttpError;
use crate::finish::{Outcome, Pending};
use crate::response::{IntoReply, Reply, reply_of};
use crate::runtime::{CompiledStep, Entry, RequestState, RunFuture};

/// The entry of a handler of type `H`: generic, so that `H`'s future is a field of the run's
/// future rather than a box of its own.
pub(crate) struct HandlerEntry<H>(pub(crate) Arc<H>);

impl<H: Handler> Entry for HandlerEntry<H> {
    fn run(&self, held: Box<RequestState>) -> RunFuture {
        Box::pin(Run::<_, H>::Steps {
            steps: RequestState::run_steps::<H, ()>(held, ()),
            // The future outlives this borrow of the route: it holds the handler itself.
            handler: Arc::clone(&self.0),
        })
    }

    fn finishing(&self) -> Option<Arc<dyn Entry>> {
        Some(Arc::new(FinishingEntry(Arc::clone(&self.0))))
    }
}

/// The entry of a handler of type `H` on a route that runs a finishing step: the steps'
/// values that finish are kept as they are provided; the handler runs with its panic caught;
/// then each kept value finishes, last first, with the outcome, before the answer is
/// returned (so before its head is sent, and inside the route's layers).
pub(crate) struct FinishingEntry<H>(pub(crate) Arc<H>);

impl<H: Handler> Entry for FinishingEntry<H> {
    fn run(&self, held: Box<RequestState>) -> RunFuture {
        Box::pin(finishing_run(held, Arc::clone(&self.0)))
    }
}

/// A finishing route's run: see [`FinishingEntry`].
async fn finishing_run<H: Handler>(held: Box<RequestState>, handler: Arc<H>) -> Reply {
    let mut pending = Pending::default();
    // A step's panic, or the handler's, is caught here rather than by the dispatch: the kept
    // values then finish with it (a transaction rolls back, awaited) before the 500.
    let answered = AssertUnwindSafe(async {
        match RequestState::run_steps::<H, _>(held, &mut pending).await {
            Ok((held, _)) => {
                let mut reply = handler.call(RequestContext::new(held)).await;
                let outcome = Outcome::answered(&mut reply);
                (reply, outcome)
            }
            Err((mut rejected, keep)) => {
                let outcome = match keep.rejected_by.take() {
                    Some(step) => Outcome::rejected(step, &mut rejected),
                    None => Outcome::answered(&mut rejected),
                };
                (*rejected, outcome)
            }
        }
    })
    .catch_unwind()
    .await;
    let (reply, outcome) = match answered {
        Ok(answered) => answered,
        Err(panic) => {
            let message = panic_message(&*panic);
            tracing::error!(panic = %message, "the request panicked");
            (
                HttpError::internal().into_reply(),
                Outcome::panicked(message),
            )
        }
    };
    pending.finish(reply, outcome).await
}

pin_project! {
    /// A request's run: its steps' future `S`, then its handler's. Written out rather than an
    /// `async` block, so that the handler's reply is returned from its own `poll` straight
    /// to the caller's: an `.await` moves it out of the handler's future and again out of
    /// the block's.
    #[project = RunProjection]
    enum Run<S, H: Handler> {
        Steps { #[pin] steps: S, handler: Arc<H> },
        Handler { #[pin] answer: H::Future },
    }
}

impl<S, H> Future for Run<S, H>
where
    S: Future<Output = Result<(Box<RequestState>, ()), (Box<Reply>, ())>>,
    H: Handler,
{
    type Output = Reply;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply> {
        loop {
            match self.as_mut().project() {
                RunProjection::Steps { steps, handler } => {
                    let held = match ready!(steps.poll(cx)) {
                        Ok((held, ())) => held,
                        Err((rejected, ())) => return Poll::Ready(*rejected),
                    };
                    let answer = handler.call(RequestContext::new(held));
                    self.set(Run::Handler { answer });
                }
                RunProjection::Handler { answer } => return answer.poll(cx),
            }
        }
    }
}

impl RequestState {
    /// The route's steps, in its plan's order, each value kept for those after it and for
    /// the handler: the request, for its handler; or the response of the first step that
    /// rejects it (boxed: the common answer, the request, is then one word rather than a
    /// response's size, and is not copied whole out of the future).
    ///
    /// `H` is the route's handler type, unused: being generic, this future is compiled in the
    /// crate that makes the route, beside the run it is awaited in, so the two can be inlined
    /// into one (a build without LTO cannot inline across crates otherwise; `#[inline]` does
    /// not reach an `async fn`'s body).
    ///
    /// `keep` is told of each step's values as they are provided, and of the step that
    /// rejects: a finishing route keeps the values that finish; every other route passes `()`,
    /// which keeps nothing and costs nothing.
    #[allow(clippy::extra_unused_type_parameters)]
    pub(crate) async fn run_steps<H, K: Keep>(
        mut held: Box<RequestState>,
        mut keep: K,
    ) -> Result<(Box<RequestState>, K), (Box<Reply>, K)> {
        let RequestState {
            parts,
            locals,
            runtime,
            route: id,
            peer,
            ..
        } = &mut *held;
        let route = &runtime.routes[*id];
        // Once every provider the route reads is built, a request checks only that the
        // container is still open (`close()` on the container alone; the app's own close
        // stops requests before they get here). Until then each step, and the handler,
        // builds what it needs just before it runs: a request rejected by a step builds
        // nothing its handler needs.
        let ready = route.ready.load(Ordering::Acquire) && !runtime.container.is_closed();
        for planned in route.plan.steps.iter() {
            if !ready && let Err(failed) = runtime.build_providers(&planned.needs).await {
                return Err((Box::new(failed), keep));
            }
            let step = &runtime.steps[planned.step];
            if step.from_connection {
                locals.push(Arc::new(ClientAddr(*peer)));
                continue;
            }
            let needs = layer::values::needs(
                &runtime.container,
                &step.descriptor.needs,
                &planned.needs,
                locals,
            );
            let span = tracing::debug_span!("step", step = %step.descriptor.name);
            // Entered only when enabled: the usual request, at INFO, has no step span.
            let run = if span.is_disabled() {
                step.step.run(parts, needs)
            } else {
                span.in_scope(|| step.step.run(parts, needs))
            }
            .0;
            let outcome = match run.now_or_later() {
                Ok(outcome) => outcome,
                // Instrumented only when enabled, as the run above is entered: a disabled
                // span still costs a call on every poll (and `Span::log` per poll once a
                // dependency turns on tracing's `log` feature, as sqlx does).
                Err(waiting) if span.is_disabled() => waiting.await,
                Err(waiting) => waiting.instrument(span.clone()).await,
            };
            match outcome {
                Ok(provided) => {
                    if let Err(wrong) =
                        layer::values::check_provided(&provided, &step.descriptor.provides)
                    {
                        span.in_scope(|| tracing::error!(returned = %wrong, "the step returned values unlike its descriptor"));
                        keep.rejected(step);
                        return Err((Box::new(HttpError::internal().into_reply()), keep));
                    }
                    let first = locals.len();
                    layer::values::append_provided(provided, |value| locals.push(value));
                    keep.kept(step, locals, first);
                }
                Err(rejection) => {
                    span.in_scope(|| {
                        tracing::debug!(status = rejection.status().as_u16(), "rejected")
                    });
                    keep.rejected(step);
                    return Err((Box::new(reply_of(rejection)), keep));
                }
            }
        }
        if !ready {
            if let Err(failed) = runtime.build_providers(&route.plan.needs).await {
                return Err((Box::new(failed), keep));
            }
            route.ready.store(true, Ordering::Release);
        }
        Ok((held, keep))
    }
}

/// What a route's steps tell of their values as they run them (see
/// [`RequestState::run_steps`]).
pub(crate) trait Keep: Send {
    /// `step` provided the values of `locals` from `first` on. (The slice is the keeper's to
    /// take: for `()`, nothing is computed.)
    fn kept(&mut self, step: &CompiledStep, locals: &[AnyValue], first: usize);

    /// `step` rejected the request.
    fn rejected(&mut self, step: &CompiledStep);
}

/// Keeps nothing: a route without finishing steps.
impl Keep for () {
    #[inline(always)]
    fn kept(&mut self, _: &CompiledStep, _: &[AnyValue], _: usize) {}

    #[inline(always)]
    fn rejected(&mut self, _: &CompiledStep) {}
}

/// Keeps the values that finish, and the step that rejected.
impl Keep for &mut Pending {
    #[inline]
    fn kept(&mut self, step: &CompiledStep, locals: &[AnyValue], first: usize) {
        if !step.finishing.is_empty() {
            let values = locals.get(first..).unwrap_or_default();
            self.keep(&step.descriptor.name, &step.finishing, values);
        }
    }

    fn rejected(&mut self, step: &CompiledStep) {
        self.rejected_by = Some(step.descriptor.name.clone());
    }
}
