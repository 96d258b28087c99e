//! Which generation of a container serves: shared by every generation of it (a reload makes
//! the next), read by the workers' supervisors, which run on the one that serves; and what
//! keeps reloads one at a time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use futures_util::future::BoxFuture;

/// The number of the generation that serves and, once the workers started or it replaced
/// one, the generation itself (held weakly: the app holds its generations).
pub(crate) struct Lineage<G> {
    current: Mutex<(u64, Weak<G>)>,
    /// Held from a reload's read of the settings until its new generation is committed or
    /// abandoned.
    reloading: Arc<tokio::sync::Mutex<()>>,
    /// For each generation a reload replaced, what ends once the worker runs that held it
    /// have ended: its `close()` waits for that first.
    moved: Mutex<Vec<Moved<G>>>,
    /// An app's container: the app reloads it (checking its health, swapping what serves),
    /// never `Container::reload`.
    app: AtomicBool,
}

/// A replaced generation (held weakly: one dropped without a close waits for nothing) and
/// what its close waits for.
type Moved<G> = (u64, Weak<G>, BoxFuture<'static, ()>);

impl<G> Default for Lineage<G> {
    fn default() -> Self {
        Lineage {
            current: Mutex::new((0, Weak::new())),
            reloading: Arc::default(),
            moved: Mutex::default(),
            app: AtomicBool::new(false),
        }
    }
}

impl<G> Lineage<G> {
    fn current(&self) -> MutexGuard<'_, (u64, Weak<G>)> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The number of the generation that serves.
    pub(crate) fn number(&self) -> u64 {
        self.current().0
    }

    /// Makes `generation`, numbered `number`, the one that serves, unless a later one does
    /// already (a generation's start that ran beside a reload never takes the workers back).
    pub(crate) fn set(&self, number: u64, generation: &Arc<G>) {
        let mut current = self.current();
        if number >= current.0 {
            *current = (number, Arc::downgrade(generation));
        }
    }

    /// The generation that serves, while it is alive.
    pub(crate) fn serving(&self) -> Option<Arc<G>> {
        self.current().1.upgrade()
    }

    /// Waits for the reload in progress, if any, and keeps the next one waiting until the
    /// guard is dropped.
    pub(crate) async fn one_reload(&self) -> tokio::sync::OwnedMutexGuard<()> {
        Arc::clone(&self.reloading).lock_owned().await
    }

    /// Notes that `generation`, numbered `number`, was replaced and that its worker runs end
    /// with `ended`. (Those of generations dropped since are let go.)
    pub(crate) fn replaced(&self, number: u64, generation: &Arc<G>, ended: BoxFuture<'static, ()>) {
        let mut moved = self.moved.lock().unwrap_or_else(PoisonError::into_inner);
        moved.retain(|(_, generation, _)| generation.strong_count() > 0);
        moved.push((number, Arc::downgrade(generation), ended));
    }

    /// What generation `number`'s worker runs end with, if a reload replaced it (taken: the
    /// first close waits for it).
    pub(crate) fn take_moved(&self, number: u64) -> Option<BoxFuture<'static, ()>> {
        let mut moved = self.moved.lock().unwrap_or_else(PoisonError::into_inner);
        let at = moved.iter().position(|(n, _, _)| *n == number)?;
        Some(moved.swap_remove(at).2)
    }

    /// Marks the container an app's.
    pub(crate) fn mark_app(&self) {
        self.app.store(true, Ordering::Relaxed);
    }

    /// Whether the container is an app's.
    pub(crate) fn is_app(&self) -> bool {
        self.app.load(Ordering::Relaxed)
    }
}
