//! Counts requests in flight so that `close()` can wait for them before disposing anything.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::sync::Notify;

/// Requests enter before they touch any provider and leave when their response is ready.
///
/// A request increments the count *before* it checks `closing`, and `close()` sets `closing`
/// before it reads the count (both `SeqCst`): so either the request sees `closing` and backs
/// out, or `close()` sees the request and waits for it. No request can slip past the drain and
/// then touch a disposed provider.
#[derive(Default)]
pub(crate) struct InFlight {
    count: AtomicUsize,
    closing: AtomicBool,
    idle: Notify,
}

pub(crate) struct Entered<'a>(&'a InFlight);

impl InFlight {
    pub(crate) fn enter(&self) -> Option<Entered<'_>> {
        self.count.fetch_add(1, Ordering::SeqCst);
        let entered = Entered(self);
        if self.closing.load(Ordering::SeqCst) {
            return None; // dropping `entered` leaves again
        }
        Some(entered)
    }

    pub(crate) fn begin_closing(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }

    pub(crate) fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
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

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 && self.0.closing.load(Ordering::SeqCst) {
            self.0.idle.notify_waiters();
        }
    }
}
