//! One provider's slot: its values once built, the single build in flight, and its stats.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::provided::{AnyValue, Provided};
use crate::error::ProvideError;
use crate::ids::{IdVec, ProviderId};

/// The outcome of one build, shared with everyone who waited on it.
pub(crate) type Outcome = Option<Result<(), ProvideError>>;

/// A build in flight: who to wait on, and how to stop it if `close()` cannot wait.
#[derive(Clone)]
pub(crate) struct PendingBuild {
    pub(crate) done: watch::Receiver<Outcome>,
    pub(crate) abort: AbortHandle,
}

/// Every provider's slot, by provider: the container's, read by [`Needs`](super::Needs) too.
pub(crate) type Slots = IdVec<ProviderId, Slot>;

/// Single-flight storage for one provider's values.
///
/// Reading built values is lock-free (`OnceLock`). The mutex guards only the start of a build,
/// so that at most one build of a provider runs at a time; its result goes to every waiter.
/// A failed build leaves the slot empty, so the next caller starts a fresh one.
#[derive(Default)]
pub(crate) struct Slot {
    values: OnceLock<Provided>,
    flight: Mutex<Option<PendingBuild>>,
    build_nanos: AtomicU64,
    disposed: AtomicBool,
    /// The error of the last build, until a build succeeds (for `Container::health`). Boxed:
    /// most slots never hold one, and every slot is allocated when the container is built.
    last_error: Mutex<Option<Box<ProvideError>>>,
}

impl Slot {
    pub(crate) fn values(&self) -> Option<&Provided> {
        self.values.get()
    }

    /// Its `index`-th value, if it is built.
    #[inline]
    pub(crate) fn value(&self, index: u32) -> Option<&AnyValue> {
        self.values.get().map(|p| &p.values()[index as usize])
    }

    pub(crate) fn is_built(&self) -> bool {
        self.values.get().is_some()
    }

    /// The build in flight, under its lock.
    pub(crate) fn flight(&self) -> MutexGuard<'_, Option<PendingBuild>> {
        // Nothing panics while holding it; a poisoned lock still holds a consistent value.
        self.flight.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores the values of the one successful build.
    pub(crate) fn fill(&self, provided: Provided, took: Duration) {
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.build_nanos.store(nanos, Ordering::Relaxed);
        // Single-flight means nobody else filled it; if that were ever broken, the first
        // value wins and this one is dropped, which keeps every handed-out value consistent.
        let _ = self.values.set(provided);
    }

    /// How long the successful build took.
    pub(crate) fn build_time(&self) -> Option<Duration> {
        match self.build_nanos.load(Ordering::Relaxed) {
            0 => None,
            nanos => Some(Duration::from_nanos(nanos)),
        }
    }

    /// A slot of a new generation holding a value the generation before built and shares
    /// with it: built, and claimed (not this generation's to dispose) until the new one
    /// serves ([`own`](Self::own)).
    pub(crate) fn inherited(from: &Slot) -> Option<Slot> {
        let slot = Slot {
            values: OnceLock::from(from.values()?.clone()),
            build_nanos: AtomicU64::new(from.build_nanos.load(Ordering::Relaxed)),
            disposed: AtomicBool::new(true),
            ..Slot::default()
        };
        Some(slot)
    }

    /// A slot of a new generation holding a value read for it (a settings type's).
    pub(crate) fn read(provided: Provided) -> Slot {
        let slot = Slot::default();
        slot.fill(provided, Duration::ZERO);
        slot
    }

    /// Makes an inherited value this generation's to dispose (it serves now).
    pub(crate) fn own(&self) {
        self.disposed.store(false, Ordering::Release);
    }

    /// Marks the slot disposed; true only for the first caller.
    pub(crate) fn claim_dispose(&self) -> bool {
        !self.disposed.swap(true, Ordering::AcqRel)
    }

    pub(crate) fn is_disposed(&self) -> bool {
        self.disposed.load(Ordering::Acquire)
    }

    /// Remembers how the last build ended: its error, or none after a success.
    pub(crate) fn record_outcome(&self, outcome: &Result<(), ProvideError>) {
        *self
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = outcome.clone().err().map(Box::new);
    }

    /// The error of the last build, if it failed (and none has succeeded since).
    pub(crate) fn last_error(&self) -> Option<ProvideError> {
        self.last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_deref()
            .cloned()
    }

    /// Whether a build is running now.
    pub(crate) fn is_building(&self) -> bool {
        self.flight().is_some()
    }
}
