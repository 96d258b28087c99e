//! Dropping a container that built something, without `close()`, warns.

use crate::support;

use green_tea::Container;
use support::logs::Logs;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn dropping_a_built_container_without_close_warns() {
    let logs = Logs::during(|| {
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
    let logs = Logs::during(|| {
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
