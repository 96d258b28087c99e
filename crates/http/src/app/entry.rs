//! A route's run, compiled for its handler's type: its steps, then its handler, in one boxed
//! future per request. The request's context and the handler's future live inside that one
//! allocation; nothing else about a request is boxed unless it waits on a step or a layer.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

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
    fn run(&self, mut held: Box<Held>) -> RunFuture {
        // The future outlives this borrow of the route: it holds the handler itself.
        let handler = Arc::clone(&self.0);
        Box::pin(async move {
            if let Err(rejected) = held.run_steps::<H>().await {
                return rejected;
            }
            handler.call(RequestContext::new(held)).await
        })
    }
}
