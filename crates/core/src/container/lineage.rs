//! Which generation of a container serves: shared by every generation of it (a reload makes
//! the next), read by the workers' supervisors, which run on the one that serves.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

/// The number of the generation that serves and, once the workers started or it replaced
/// one, the generation itself (held weakly: the app holds its generations).
pub(crate) struct Lineage<G> {
    current: Mutex<(u64, Weak<G>)>,
}

impl<G> Default for Lineage<G> {
    fn default() -> Self {
        Lineage {
            current: Mutex::new((0, Weak::new())),
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
}
