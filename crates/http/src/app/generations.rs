//! What an app keeps of its reloads: the lock that makes them one at a time, the generations
//! they replaced until those are done, the last failure (for health), and what else starts
//! one (SIGHUP, the settings file). `reload.rs` runs them; `reload_on.rs` listens.

use std::sync::{Mutex, Weak};
use std::time::Duration;

use tokio::task::JoinHandle;

use green_tea_core::CloseError;

use crate::runtime::Runtime;

/// What an app keeps of its reloads.
#[derive(Default)]
pub(crate) struct Reloads {
    /// Written by a reload, one at a time; read by what a reload must not run beside: a
    /// start of the generation that serves (`start()`, a serve starting the workers), and
    /// `close()`, so that no generation is swapped in once the close has begun. Readers do
    /// not wait for each other: a close does not wait for a start.
    pub(crate) one_at_a_time: tokio::sync::RwLock<()>,
    /// The generations a reload replaced, each until its last request is done and what it
    /// alone holds is disposed (the task that waits for that).
    pub(crate) retiring: Mutex<Vec<Retiring>>,
    /// The last reload's failure, for health: `None` before any, or after one that took
    /// effect or found nothing changed.
    pub(crate) last_failure: Mutex<Option<String>>,
}

/// A generation a reload replaced, and the task that closes it after its last request (and
/// holds it until then: once the task is done, the generation's values are let go).
pub(crate) struct Retiring {
    pub(crate) runtime: Weak<Runtime>,
    pub(crate) task: JoinHandle<Result<(), CloseError>>,
}

/// How an app is asked to reload, besides `App::reload()`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ReloadOn {
    /// On SIGHUP, while a `serve*` that handles signals runs.
    pub(crate) sighup: bool,
    /// On a change of the settings file, polled this often.
    pub(crate) file_every: Option<Duration>,
}

/// Stops a task when dropped: the SIGHUP task of a serve, when the serve ends.
pub(crate) struct StopOnDrop(pub(crate) Option<tokio::task::JoinHandle<()>>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(task) = &self.0 {
            task.abort();
        }
    }
}
