//! What starts a reload besides `App::reload()`: SIGHUP while `serve` handles signals, and a
//! change of the settings file, polled. Each runs in a task that holds the app weakly and ends
//! when the app begins to close.
//!
//! The file is polled rather than watched through the OS (inotify and its kin): a poll reads
//! the file whole and compares a hash of its bytes, which sees every way a file changes —
//! written in place, replaced by a rename (what editors do), or behind a symlink that is
//! swapped (what Kubernetes does to a mounted ConfigMap, which inotify on the file's path
//! misses) — with no dependency and the same behaviour on every platform. A settings file is
//! small: a poll is a read of a few hundred bytes and a hash, once a second as the guide
//! suggests.

use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use green_tea_core::__private::layer;

use super::AppInner;

impl AppInner {
    /// Starts polling the settings file, once (from `start()` or the first serve), if the app
    /// asked for it.
    pub(crate) fn begin_watching(self: &Arc<Self>) {
        let Some(every) = self.reload_on.file_every else {
            return;
        };
        if self
            .watching
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return;
        }
        let Some(path) = layer::reload::settings_file(&self.runtime().container) else {
            tracing::warn!(
                "reload on a change of the settings file was asked for, but the settings are \
                 read from no file: nothing is watched"
            );
            return;
        };
        tracing::info!(path = %path.display(), ?every, "watching the settings file for changes");
        tokio::spawn(watch_file(Arc::downgrade(self), path, every));
    }

    /// Reloads on each SIGHUP until the app begins to close: registered now (the default
    /// action, ending the process, is replaced from here on), if the app asked for it and a
    /// runtime is current. What it returns stops the task when dropped (when the serve ends).
    pub(crate) fn reload_on_sighup(self: &Arc<Self>) -> Option<tokio::task::JoinHandle<()>> {
        if !self.reload_on.sighup {
            return None;
        }
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            tokio::runtime::Handle::try_current().ok()?;
            let mut hangups = match signal(SignalKind::hangup()) {
                Ok(hangups) => hangups,
                Err(error) => {
                    tracing::error!(%error, "SIGHUP cannot be caught: it will not reload");
                    return None;
                }
            };
            let app = Arc::downgrade(self);
            let mut closing = self.runtime().shutdown.subscribe();
            Some(tokio::spawn(async move {
                loop {
                    tokio::select! {
                        caught = hangups.recv() => {
                            if caught.is_none() {
                                return;
                            }
                        }
                        _ = closing.wait_for(|closing| *closing) => return,
                    }
                    tracing::info!("SIGHUP: reloading the settings");
                    let Some(app) = app.upgrade() else { return };
                    // The outcome is logged, counted and in health.
                    let _ = app.reload().await;
                }
            }))
        }
        #[cfg(not(unix))]
        None
    }
}

/// Polls `path` every `every`; a change is applied once the file has stayed the same for one
/// more poll, so that a save written in several steps, or two saves within one interval, make
/// one reload. A file that cannot be read counts as a change too (the reload says why).
async fn watch_file(app: Weak<AppInner>, path: PathBuf, every: Duration) {
    let mut closing = match app.upgrade() {
        Some(app) => app.runtime().shutdown.subscribe(),
        None => return,
    };
    let mut seen = fingerprint(&path);
    let mut pending = false;
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = closing.wait_for(|closing| *closing) => return,
        }
        let now = fingerprint(&path);
        if now != seen {
            // Changed since the last poll: wait for it to settle.
            seen = now;
            pending = true;
            continue;
        }
        if !std::mem::take(&mut pending) {
            continue;
        }
        let Some(app) = app.upgrade() else { return };
        tracing::info!(path = %path.display(), "the settings file changed: reloading");
        let _ = app.reload().await;
    }
}

/// What a poll compares: a hash of the file's bytes, or of why it could not be read. Read on
/// the task itself, as `build()` and a reload read it: a settings file is a few hundred bytes
/// (a poll took under 5 µs), and a read on the blocking pool would cost more than it does.
fn fingerprint(path: &std::path::Path) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    match std::fs::read(path) {
        Ok(bytes) => hasher.hash_one(&bytes),
        Err(error) => hasher.hash_one(error.kind().to_string()),
    }
}
