//! Where the breaker's lock and atomics come from: std's in every real build, loom's when the
//! loom models (`loom/` at the repository root) compile these files with `cfg(green_tea_loom)`,
//! so the models run this code and not a copy. The same switch as tokio's `src/loom/mod.rs`,
//! under a cfg of its own: `--cfg loom` would also change tokio.

#[cfg(not(green_tea_loom))]
pub(crate) use std::sync::{Mutex, MutexGuard, atomic::AtomicU64};

#[cfg(green_tea_loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard, atomic::AtomicU64};
