//! A route's run, compiled for its handler's type: its steps, then its handler, in one boxed
//! future per request. The request's context and the handler's future live inside that one
//! allocation; nothing else about a request is boxed unless it waits on a step or a layer.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use pin_project_lite::pin_project;

use crate::context::{Held, RequestContext};
use crate::response::Reply;
use crate::route::Handler;

/// A request's run, type-erased: the one box a request pays for.
pub(crate) type RunFuture = Pin<Box<dyn Future<Output = Reply> + Send + 'static>>;

/// What a compiled route keeps of its handler: the run of a routed request.
pub(crate) trait Entry: Send + Sync + 'static {
    /// The request's steps, then the handler, on `held` (without the route's layers: the
    /// caller has been through them).
    fn run(&self, held: Box<Held>) -> RunFuture;
}

/// The entry of a handler of type `H`: generic, so that `H`'s future is a field of the run's
/// future rather than a box of its own.
pub(crate) struct HandlerEntry<H>(pub(crate) Arc<H>);

impl<H: Handler> Entry for HandlerEntry<H> {
    fn run(&self, held: Box<Held>) -> RunFuture {
        Box::pin(Run::<_, H>::Steps {
            steps: Held::run_steps::<H>(held),
            // The future outlives this borrow of the route: it holds the handler itself.
            handler: Arc::clone(&self.0),
        })
    }
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
    S: Future<Output = Result<Box<Held>, Box<Reply>>>,
    H: Handler,
{
    type Output = Reply;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply> {
        loop {
            match self.as_mut().project() {
                RunProjection::Steps { steps, handler } => {
                    let held = match ready!(steps.poll(cx)) {
                        Ok(held) => held,
                        Err(rejected) => return Poll::Ready(*rejected),
                    };
                    let answer = handler.call(RequestContext::new(held));
                    self.set(Run::Handler { answer });
                }
                RunProjection::Handler { answer } => return answer.poll(cx),
            }
        }
    }
}
