//! Counts requests in flight so that `close()` can wait for them before disposing anything:
//! the count, a request's place in it ([`Entered`]), and the guard that keeps work after a
//! response in flight. Below the response body (which holds a request's place until it is
//! sent), so it knows nothing of the app or the server.

mod count;

use std::sync::Arc;

use tokio::sync::{Notify, watch};

use count::Count;

/// Requests enter before they touch any provider and leave when their response body has been
/// sent or dropped (a streaming body may still read a provider after the handler returned).
///
/// A request is counted and sees whether closing has begun in one step, and `close()` begins
/// closing before it reads the count (see [`Count`]): so either the request sees closing and
/// backs out, or `close()` sees the request and waits for it. No request can slip past the
/// drain and then touch a disposed provider.
#[derive(Default)]
pub(crate) struct InFlight {
    count: Count,
    idle: Notify,
}

/// One request in flight; dropping it leaves.
pub(crate) struct Entered(Arc<InFlight>);

impl InFlight {
    #[inline]
    pub(crate) fn enter(this: &Arc<InFlight>) -> Option<Entered> {
        let may_go_on = this.count.enter();
        // Counted either way: if closing has begun, dropping it leaves again.
        let entered = Entered(Arc::clone(this));
        may_go_on.then_some(entered)
    }

    /// Counts one more in flight, whether or not closing has begun: for work that joins a
    /// request already in flight (see [`InFlightGuard::new`]).
    fn join(this: &Arc<InFlight>) -> Entered {
        this.count.join();
        Entered(Arc::clone(this))
    }

    pub(crate) fn begin_closing(&self) {
        self.count.begin_closing();
    }

    pub(crate) fn count(&self) -> usize {
        self.count.in_flight()
    }

    /// Resolves once no request is in flight (after `begin_closing`).
    pub(crate) async fn drained(&self) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.count() == 0 {
                return;
            }
            idle.await;
        }
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if self.0.count.leave() {
            self.0.idle.notify_waiters();
        }
    }
}

/// Keeps a request in flight after its response, until dropped (see
/// [`RequestContext::keep_in_flight`](crate::RequestContext::keep_in_flight)).
///
/// `Send + Sync`, so it can move into the task that does the work.
pub struct InFlightGuard {
    _entered: Entered,
    closing: tokio::sync::watch::Receiver<bool>,
}

impl InFlightGuard {
    /// Joins the request's place in flight. Unlike [`InFlight::enter`] it does not back out
    /// when closing has begun: it is made while its request is still in flight (the
    /// request's own entry is held until its response is done), so `close()` has not
    /// finished draining and will wait for this entry too.
    pub(crate) fn new(in_flight: &Arc<InFlight>, shutdown: &watch::Sender<bool>) -> Self {
        InFlightGuard {
            _entered: InFlight::join(in_flight),
            closing: shutdown.subscribe(),
        }
    }

    /// Resolves once `close()` has begun (at once if it has): time to finish the work and
    /// drop the guard, before the drain timeout runs out.
    pub async fn closing(&self) {
        let _ = self.closing.clone().wait_for(|closing| *closing).await;
    }

    /// Whether `close()` has begun.
    pub fn is_closing(&self) -> bool {
        *self.closing.borrow()
    }
}

impl std::fmt::Debug for InFlightGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InFlightGuard")
            .field("closing", &self.is_closing())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::InFlight;
    use crate::response::ResponseBody;

    /// A body keeps its request's place until it is dropped, whatever the caller that wraps
    /// it passes on (the server passes `None` for a reply that came back through layers).
    #[test]
    fn a_body_keeps_its_place_until_it_is_dropped() {
        let in_flight = Arc::new(InFlight::default());
        let mut body = ResponseBody::empty();
        body.hold_in_flight(InFlight::enter(&in_flight));
        assert_eq!(in_flight.count(), 1);
        body.hold_in_flight(None);
        assert_eq!(in_flight.count(), 1, "None released the place");
        drop(body);
        assert_eq!(in_flight.count(), 0);
    }
}
