//! Dropping a container that built something, without `close()`, warns.

use std::io::Write;
use std::sync::{Arc, Mutex};

use green_tea::Container;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn captured_while(f: impl FnOnce()) -> String {
    let out = Captured::default();
    let writer = out.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    String::from_utf8(out.0.lock().unwrap().clone()).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn dropping_a_built_container_without_close_warns() {
    let logs = captured_while(|| {
        let container = Container::builder().value("db", 1_u32).build().unwrap();
        runtime().block_on(container.get::<u32>("db")).unwrap();
        drop(container);
    });
    assert!(logs.contains("WARN"), "{logs}");
    assert!(logs.contains("dropped without close()"), "{logs}");
    assert!(logs.contains("value `db`"), "{logs}");
}

#[test]
fn dropping_after_close_or_before_any_build_is_quiet() {
    let logs = captured_while(|| {
        let unused = Container::builder().value("db", 1_u32).build().unwrap();
        drop(unused);
        let closed = Container::builder().value("db", 1_u32).build().unwrap();
        let rt = runtime();
        rt.block_on(closed.get::<u32>("db")).unwrap();
        rt.block_on(closed.close()).unwrap();
        drop(closed);
    });
    assert!(!logs.contains("dropped without close()"), "{logs}");
}
