//! The app's workers: registered on the builder (or in a module), started by `start()` and
//! `serve`, stopped by `close()` after the drain and before the modules' `on_shutdown` hooks
//! and any dispose.

use std::time::Duration;

use green_tea_core::workers::Worker;

use super::AppBuilder;

impl AppBuilder {
    /// Adds a worker: a long-running task of the app that needs providers (checked at
    /// `build()` like any need; a worker cannot need a step's request value). `start()` and
    /// `serve` start it once what it needs is built; `close()` signals it after the drain and
    /// waits for it (up to [`worker_stop_timeout`](Self::worker_stop_timeout)) before the
    /// modules' `on_shutdown` hooks run and anything is disposed.
    pub fn worker(mut self, worker: impl Worker) -> Self {
        self.container = self.container.worker(worker);
        self
    }

    /// How long the workers may take to stop after their shutdown signal (together: they
    /// stop concurrently) before `close()` abandons the ones still running, aborts their
    /// tasks and reports each. Default: 10 s.
    pub fn worker_stop_timeout(mut self, timeout: Duration) -> Self {
        self.container = self.container.worker_stop_timeout(timeout);
        self
    }

    /// Replaces the registered worker named `name` (as health lists it: `orders::relay` for a
    /// module's) with `worker`, for tests: a fake that records what it would have done. The
    /// replacement takes the original's name and module; a name no worker has is a build
    /// error (GT0020).
    #[track_caller]
    pub fn override_worker(mut self, name: impl Into<String>, worker: impl Worker) -> Self {
        self.container = self.container.override_worker(name, worker);
        self
    }

    /// Leaves out the registered worker named `name` (`orders::relay` for a module's), for
    /// tests that want no background work; a name no worker has is a build error (GT0020).
    #[track_caller]
    pub fn without_worker(mut self, name: impl Into<String>) -> Self {
        self.container = self.container.without_worker(name);
        self
    }
}
