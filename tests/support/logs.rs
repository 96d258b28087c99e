//! What `tracing` logs, captured as text.
//!
//! One subscriber for the whole test binary, installed once as the global default, writes
//! each event to the capture of the thread it happens on. Not a `set_default` subscriber per
//! test: tracing caches whether a callsite is enabled, and a callsite first hit by a test
//! without a subscriber while another test installs its own can stay cached as disabled, so
//! the second test misses events (it happened under load). With one global subscriber whose
//! filter is asked at every event, nothing is cached that a capture could disagree with.

use std::cell::RefCell;
use std::io::Write;
use std::sync::{Arc, Mutex, Once};

use tracing::Level;
use tracing_subscriber::filter::DynFilterFn;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::{Layer, Registry};

/// Everything logged on this thread while the guard of [`Logs::start`] lives, or during
/// [`Logs::during`], as `tracing_subscriber::fmt` prints it (no colours).
#[derive(Clone, Default)]
pub struct Logs(Arc<Mutex<Vec<u8>>>);

thread_local! {
    /// This thread's capture, and the most verbose level it takes.
    static CAPTURE: RefCell<Option<(Logs, Level)>> = const { RefCell::new(None) };
}

/// Stops this thread's capture when dropped.
#[must_use = "the capture stops when the guard is dropped"]
pub struct Capturing(());

impl Drop for Capturing {
    fn drop(&mut self) {
        CAPTURE.with(|capture| capture.borrow_mut().take());
    }
}

impl Logs {
    /// Captures until the guard is dropped, at INFO and above (`fmt`'s default).
    pub fn start() -> (Self, Capturing) {
        Logs::start_at(Level::INFO)
    }

    /// Captures until the guard is dropped, at `level` and above.
    pub fn start_at(level: Level) -> (Self, Capturing) {
        install();
        let logs = Logs::default();
        CAPTURE.with(|capture| *capture.borrow_mut() = Some((logs.clone(), level)));
        (logs, Capturing(()))
    }

    /// What `f` logs.
    pub fn during(f: impl FnOnce()) -> String {
        let (logs, capturing) = Logs::start();
        f();
        drop(capturing);
        logs.text()
    }

    /// What has been logged so far.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// The binary's one subscriber: `fmt`, enabled for an event only on a thread that captures
/// at its level, writing to that capture.
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let capturing = DynFilterFn::new(|metadata, _| {
            CAPTURE.with(|capture| {
                capture
                    .borrow()
                    .as_ref()
                    .is_some_and(|(_, level)| metadata.level() <= level)
            })
        });
        let layer = tracing_subscriber::fmt::layer()
            .with_writer(ThisThread)
            .with_ansi(false)
            .with_filter(capturing);
        tracing::subscriber::set_global_default(Registry::default().with(layer))
            .expect("no other global subscriber in a test binary that captures logs");
    });
}

/// Writes to the current thread's capture (nowhere if it has none).
struct ThisThread;

impl<'a> MakeWriter<'a> for ThisThread {
    type Writer = Capture;

    fn make_writer(&'a self) -> Capture {
        Capture(CAPTURE.with(|capture| capture.borrow().as_ref().map(|(logs, _)| logs.clone())))
    }
}

struct Capture(Option<Logs>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(logs) = &self.0 {
            logs.0.lock().unwrap().extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
