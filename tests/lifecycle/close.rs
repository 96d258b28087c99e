//! `close()`: dispose every built provider once, dependents first, whatever each dispose does.

use crate::support;

use std::time::Duration;

use green_tea::error::{ClosePart, FailureCause};
use green_tea::{Container, ProvideError};
use support::{Log, OnDispose, Probe, Service};

/// Five providers in a chain `e -> d -> c -> b -> a` (e needs d ...), three of them bad.
fn chain(log: &Log) -> Container {
    Container::builder()
        .provider(Probe::new("a", &[], log))
        .provider(Probe::new("b", &["a"], log).on_dispose(OnDispose::Fail))
        .provider(Probe::new("c", &["b"], log).on_dispose(OnDispose::Panic))
        .provider(Probe::new("d", &["c"], log).on_dispose(OnDispose::Hang))
        .provider(
            Probe::new("e", &["d"], log).on_dispose(OnDispose::Sleep(Duration::from_millis(20))),
        )
        .dispose_timeout(Duration::from_millis(200))
        .build()
        .unwrap()
}

#[tokio::test]
async fn failing_panicking_and_hanging_disposes_are_reported_and_skip_nothing() {
    let log = Log::default();
    let container = chain(&log);
    container.get::<Service>("e").await.unwrap();

    let err = container.close().await.unwrap_err();
    assert_eq!(
        log.names("dispose"),
        ["e", "d", "c", "b", "a"],
        "every one, dependents first"
    );
    let failed: Vec<(&str, &FailureCause)> = err
        .failures
        .iter()
        .map(|f| match &f.part {
            ClosePart::Provider { name, .. } => (name.as_str(), &f.cause),
            other => panic!("only providers close here, not {other}"),
        })
        .collect();
    assert_eq!(failed.len(), 3, "{err}");
    assert!(matches!(failed[0], ("d", FailureCause::TimedOut(_))));
    assert!(
        matches!(failed[1], ("c", FailureCause::Panicked(msg)) if msg == "c panicked in dispose")
    );
    assert!(
        matches!(failed[2], ("b", FailureCause::Error(e)) if e.to_string() == "b failed to dispose")
    );
    assert_eq!(
        err.failures[0].part,
        ClosePart::Provider {
            name: "d".into(),
            keys: vec!["d".into()]
        }
    );
    let text = err.to_string();
    assert!(
        text.starts_with(
            "3 part(s) failed to close:\n  provider `d` (provides `d`): did not finish within"
        ),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_twice_or_concurrently_disposes_once_with_one_outcome() {
    let log = Log::default();
    let container = chain(&log);
    container.get::<Service>("e").await.unwrap();

    let closes: Vec<_> = (0..8)
        .map(|_| {
            let container = container.clone();
            tokio::spawn(async move { container.close().await })
        })
        .collect();
    let mut outcomes = Vec::new();
    for close in closes {
        outcomes.push(close.await.unwrap().unwrap_err().to_string());
    }
    outcomes.push(container.close().await.unwrap_err().to_string());
    assert!(outcomes.windows(2).all(|w| w[0] == w[1]), "{outcomes:?}");
    assert_eq!(
        log.names("dispose"),
        ["e", "d", "c", "b", "a"],
        "each disposed exactly once"
    );
}

#[tokio::test]
async fn after_close_get_returns_closed_and_nothing_is_built() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("a", &[], &log))
        .build()
        .unwrap();
    container.close().await.unwrap();
    assert!(container.is_closed());
    assert!(matches!(
        container.get::<Service>("a").await,
        Err(ProvideError::Closed)
    ));
    assert!(log.events().is_empty());
}

#[tokio::test]
async fn a_value_handed_out_is_disposed_only_after_its_dependents() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("a", &[], &log))
        .provider(Probe::new("b", &["a"], &log))
        .build()
        .unwrap();
    let a = container.get::<Service>("a").await.unwrap();
    let b = container.get::<Service>("b").await.unwrap();
    container.close().await.unwrap();
    assert!(a.is_disposed() && b.is_disposed());
    assert_eq!(
        log.events(),
        ["provide a", "provide b", "dispose b", "dispose a"]
    );
}

#[tokio::test]
async fn a_build_in_flight_when_close_begins_is_still_disposed() {
    let log = Log::default();
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let probe = Probe::new("slow", &[], &log).on_provide(support::OnProvide::WaitThen(
        std::sync::Arc::clone(&gate),
        true,
    ));
    let builds = probe.counter();
    let container = Container::builder().provider(probe).build().unwrap();
    let getter = tokio::spawn({
        let container = container.clone();
        async move { container.get::<Service>("slow").await }
    });
    while builds.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
    let closer = tokio::spawn({
        let container = container.clone();
        async move { container.close().await }
    });
    while !container.is_closed() {
        tokio::task::yield_now().await;
    }
    gate.notify_one();
    closer.await.unwrap().unwrap();
    // The build finished after close began: its caller gets `Closed`, never a value that is
    // about to be disposed, and the value is still disposed.
    assert!(matches!(getter.await.unwrap(), Err(ProvideError::Closed)));
    assert_eq!(log.events(), ["provide slow", "dispose slow"]);
}

/// A build and `close()` are bounded with tokio's timers. On a runtime built without them a
/// build fails and says so, rather than hanging unbounded or panicking in the caller (the
/// app's close says so too: tests/http/close.rs).
#[test]
fn a_build_on_a_runtime_without_timers_is_an_error_that_says_so() {
    let log = Log::default();
    let (built, closed) = support::runtime_without_timers().block_on(async {
        let container = Container::builder()
            .provider(Probe::new("a", &[], &log))
            .build()
            .unwrap();
        // A build is bounded by its timeout, which needs the timers: an error that says so,
        // not a hang, and not a loop of builds started again.
        let built = container.get::<Service>("a").await.map(|_| ());
        (built, container.close().await)
    });
    let err = built.expect_err("no timers to bound the build with");
    assert!(
        err.to_string().contains(
            "provider `a` failed: its build timeout needs tokio's timers (`enable_time` or \
             `enable_all` on the runtime's builder"
        ),
        "{err}"
    );
    assert!(err.to_string().contains("timers are disabled"), "{err}");
    // Nothing was built: nothing to bound a dispose with.
    closed.unwrap();
}
