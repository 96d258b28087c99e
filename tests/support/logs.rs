//! What `tracing` logs, captured as text.

use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing::subscriber::DefaultGuard;

/// Everything logged on this thread while the guard of [`Logs::start`] lives, or during
/// [`Logs::during`], as `tracing_subscriber::fmt` prints it (no colours).
#[derive(Clone, Default)]
pub struct Logs(Arc<Mutex<Vec<u8>>>);

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    /// Captures until the guard is dropped, at INFO and above (`fmt`'s default).
    pub fn start() -> (Self, DefaultGuard) {
        Logs::start_at(tracing::Level::INFO)
    }

    /// Captures until the guard is dropped, at `level` and above.
    pub fn start_at(level: tracing::Level) -> (Self, DefaultGuard) {
        let logs = Logs::default();
        let guard = tracing::subscriber::set_default(logs.subscriber(level));
        (logs, guard)
    }

    /// What `f` logs.
    pub fn during(f: impl FnOnce()) -> String {
        let logs = Logs::default();
        tracing::subscriber::with_default(logs.subscriber(tracing::Level::INFO), f);
        logs.text()
    }

    /// What has been logged so far.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    fn subscriber(&self, level: tracing::Level) -> impl tracing::Subscriber + Send + Sync + use<> {
        let writer = self.clone();
        tracing_subscriber::fmt()
            .with_max_level(level)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish()
    }
}
