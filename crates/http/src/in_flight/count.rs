//! The drain's counting protocol: how many requests are in flight, and whether closing has
//! begun, in one atomic word. No tokio here, so the loom models (`loom/` at the repository
//! root) run this file with loom's atomics (`cfg(green_tea_loom)`).

#[cfg(green_tea_loom)]
use loom::sync::atomic::AtomicUsize;
#[cfg(not(green_tea_loom))]
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::SeqCst;

/// The word's top bit: closing has begun. The bits below count the requests in flight.
const CLOSING: usize = 1 << (usize::BITS - 1);

/// Requests in flight and the closing flag, in one word.
///
/// One word, so every entry and `begin_closing` fall in its one modification order: an entry
/// ordered before `begin_closing` is in the count that `close()` reads from then on, and an
/// entry ordered after it reads the closing bit in the same read-modify-write and backs out.
/// No request can slip past the drain. (Two atomics, a count and a flag, need `SeqCst` on all
/// four accesses for the same promise, an argument loom cannot check: it treats `SeqCst`
/// accesses as `AcqRel`.) The accesses stay `SeqCst` although acquire/release would do: a
/// request's leaving publishes its work to the `close()` that reads the count at 0, and the
/// providers are disposed after that.
#[derive(Default)]
pub(crate) struct Count {
    word: AtomicUsize,
}

impl Count {
    /// Counts one more in flight and says whether it may go on: `false` once closing has
    /// begun. Counted either way: the caller leaves again.
    #[inline]
    pub(crate) fn enter(&self) -> bool {
        self.word.fetch_add(1, SeqCst) & CLOSING == 0
    }

    /// Counts one more in flight, whether or not closing has begun.
    #[inline]
    pub(crate) fn join(&self) {
        self.word.fetch_add(1, SeqCst);
    }

    /// Counts one out; `true` if it was the last and closing has begun: the drain must be
    /// woken.
    #[inline]
    pub(crate) fn leave(&self) -> bool {
        let before = self.word.fetch_sub(1, SeqCst);
        debug_assert_ne!(before & !CLOSING, 0, "left more often than entered");
        before == CLOSING | 1
    }

    pub(crate) fn begin_closing(&self) {
        self.word.fetch_or(CLOSING, SeqCst);
    }

    /// Requests in flight now.
    pub(crate) fn in_flight(&self) -> usize {
        self.word.load(SeqCst) & !CLOSING
    }
}
