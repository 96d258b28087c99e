//! What an app keeps of its reloads: the lock that makes them one at a time, the generations
//! they replaced until those are done, and the last failure (for health). `reload.rs` runs
//! them.

use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;

use green_tea_core::CloseError;

use crate::runtime::Runtime;

/// What an app keeps of its reloads.
#[derive(Default)]
pub(crate) struct Reloads {
    /// One reload at a time; `close()` takes it too, so that no generation is swapped in
    /// once the close has begun.
    pub(crate) one_at_a_time: tokio::sync::Mutex<()>,
    /// The generations a reload replaced, each until its last request is done and what it
    /// alone holds is disposed (the task that waits for that).
    pub(crate) retiring: Mutex<Vec<Retiring>>,
    /// The last reload's outcome, for health: `None` before any, or after one took effect.
    pub(crate) last_failure: Mutex<Option<String>>,
}

/// A generation a reload replaced, and the task that closes it after its last request.
pub(crate) struct Retiring {
    pub(crate) runtime: Arc<Runtime>,
    pub(crate) task: JoinHandle<Result<(), CloseError>>,
}
