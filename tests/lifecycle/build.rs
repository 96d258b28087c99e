//! Lazy, single-flight builds: only the slice asked for, each provider at most once.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use green_tea::error::FailureCause;
use green_tea::{Container, ProvideError};
use support::{Log, OnProvide, Probe, Service};
use tokio::sync::{Barrier, Notify};

#[tokio::test]
async fn a_diamond_builds_dependencies_first_and_disposes_dependents_first() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("top", &["left", "right"], &log))
        .provider(Probe::new("left", &["base"], &log))
        .provider(Probe::new("right", &["base"], &log))
        .provider(Probe::new("base", &[], &log))
        .build()
        .unwrap();
    container.get::<Service>("top").await.unwrap();
    let built = log.names("provide");
    assert_eq!(built.len(), 4);
    assert_eq!(built.first().unwrap(), "base");
    assert_eq!(built.last().unwrap(), "top");

    container.close().await.unwrap();
    let disposed = log.names("dispose");
    assert_eq!(disposed.len(), 4);
    assert_eq!(disposed.first().unwrap(), "top");
    assert_eq!(disposed.last().unwrap(), "base");
}

#[tokio::test]
async fn only_the_slice_asked_for_is_built() {
    let log = Log::default();
    let unrelated = Probe::new("unrelated", &[], &log);
    let unrelated_builds = unrelated.counter();
    let container = Container::builder()
        .provider(Probe::new("base", &[], &log))
        .provider(Probe::new("top", &["base"], &log))
        .provider(unrelated)
        .build()
        .unwrap();
    container.get::<Service>("top").await.unwrap();
    assert_eq!(unrelated_builds.load(Ordering::SeqCst), 0);
    let explain = container.explain_key("unrelated").unwrap();
    assert!(!explain.nodes[0].built);
    container.close().await.unwrap();
    assert_eq!(
        log.names("dispose"),
        ["top", "base"],
        "nothing unbuilt is disposed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_first_gets_build_each_provider_once() {
    const TASKS: usize = 1_000;
    let log = Log::default();
    let probes = [
        Probe::new("base", &[], &log).on_provide(OnProvide::Sleep(Duration::from_millis(20))),
        Probe::new("left", &["base"], &log),
        Probe::new("right", &["base"], &log),
        Probe::new("top", &["left", "right"], &log),
    ];
    let counters: Vec<_> = probes.iter().map(Probe::counter).collect();
    let container = probes
        .into_iter()
        .fold(Container::builder(), |b, p| b.provider(p))
        .build()
        .unwrap();

    let barrier = Arc::new(Barrier::new(TASKS));
    let tasks: Vec<_> = (0..TASKS)
        .map(|i| {
            let (container, barrier) = (container.clone(), Arc::clone(&barrier));
            tokio::spawn(async move {
                barrier.wait().await;
                let key = ["top", "left", "right", "base"][i % 4];
                container.get::<Service>(key).await.unwrap()
            })
        })
        .collect();
    let mut tops = Vec::new();
    for (i, task) in tasks.into_iter().enumerate() {
        let service = task.await.unwrap();
        if i % 4 == 0 {
            tops.push(service);
        }
    }
    for counter in &counters {
        assert_eq!(counter.load(Ordering::SeqCst), 1);
    }
    assert!(
        tops.windows(2).all(|w| Arc::ptr_eq(&w[0], &w[1])),
        "everyone got the same value"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_failed_build_is_not_cached_and_names_the_chain() {
    let log = Log::default();
    let flaky = Probe::new("billingApi", &[], &log).on_provide(OnProvide::FailTimes(1.into()));
    let flaky_builds = flaky.counter();
    let container = Container::builder()
        .provider(flaky)
        .provider(Probe::new("billing", &["billingApi"], &log))
        .build()
        .unwrap();

    let err = container.get::<Service>("billing").await.unwrap_err();
    let ProvideError::Failed {
        provider,
        needed_by,
        cause,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(provider, "billingApi");
    assert_eq!(needed_by, &["billing"]);
    assert!(matches!(cause, FailureCause::Error(e) if e.to_string() == "billingApi is down"));
    assert_eq!(
        err.to_string(),
        "provider `billingApi` failed: billingApi is down, needed by `billing`"
    );

    container
        .get::<Service>("billing")
        .await
        .expect("the next get retries");
    assert_eq!(flaky_builds.load(Ordering::SeqCst), 2);
    container.close().await.unwrap();
}

#[tokio::test]
async fn callers_waiting_on_a_failing_build_share_its_error() {
    let log = Log::default();
    let gate = Arc::new(Notify::new());
    let probe =
        Probe::new("db", &[], &log).on_provide(OnProvide::WaitThen(Arc::clone(&gate), false));
    let builds = probe.counter();
    let container = Container::builder().provider(probe).build().unwrap();

    let waiters: Vec<_> = (0..10)
        .map(|_| {
            let container = container.clone();
            tokio::spawn(async move { container.get::<Service>("db").await })
        })
        .collect();
    // On this single-threaded runtime, yielding lets every waiter run up to the build in flight.
    while builds.load(Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    gate.notify_one();
    for waiter in waiters {
        assert!(matches!(
            waiter.await.unwrap(),
            Err(ProvideError::Failed { .. })
        ));
    }
    assert_eq!(
        builds.load(Ordering::SeqCst),
        1,
        "one build, its error shared"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_panicking_provide_is_an_error_and_does_not_poison_the_slot() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("bad", &[], &log).on_provide(OnProvide::Panic))
        .build()
        .unwrap();
    for _ in 0..2 {
        let err = container.get::<Service>("bad").await.unwrap_err();
        assert!(matches!(
            &err,
            ProvideError::Failed { cause: FailureCause::Panicked(msg), .. } if msg == "bad panicked in provide"
        ));
    }
    assert_eq!(log.names("provide").len(), 2, "each get retried");
    container.close().await.unwrap();
}

#[tokio::test]
async fn asking_for_an_unknown_key_or_the_wrong_type_is_an_error() {
    let container = Container::builder()
        .value("billingApi", 1_u32)
        .build()
        .unwrap();
    let err = container.get::<u32>("billing_api").await.unwrap_err();
    assert!(
        matches!(&err, ProvideError::UnknownKey { suggestion: Some(s), .. } if s.as_str() == "billingApi")
    );
    let err = container.get::<String>("billingApi").await.unwrap_err();
    assert!(matches!(err, ProvideError::WrongType { .. }));
    assert_eq!(
        err.to_string(),
        "error[GT0102]: `billingApi` has type `u32`, but was asked for as `String`"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_provider_returning_the_wrong_values_is_an_error() {
    struct Liar;
    impl green_tea::Provider for Liar {
        fn descriptor(&self) -> green_tea::Descriptor {
            green_tea::Descriptor::new("liar").provides::<u32>("answer")
        }
        async fn provide(
            &self,
            _: green_tea::Needs<'_>,
        ) -> Result<green_tea::Provided, green_tea::BoxError> {
            Ok(green_tea::Provided::one("forty-two"))
        }
    }
    let container = Container::builder().provider(Liar).build().unwrap();
    let err = container.get::<u32>("answer").await.unwrap_err();
    assert!(
        matches!(
            err,
            ProvideError::Failed {
                cause: FailureCause::WrongOutput(_),
                ..
            }
        ),
        "{err}"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_resolver_reads_a_built_value_without_building_again() {
    let log = Log::default();
    let probe = Probe::new("db", &[], &log);
    let builds = probe.counter();
    let container = Container::builder().provider(probe).build().unwrap();
    let db = container.resolver::<Service>("db").unwrap();
    assert!(db.try_get().unwrap().is_none(), "try_get never builds");
    let first = db.get().await.unwrap();
    let again = db.try_get().unwrap().unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    container.close().await.unwrap();
    assert!(matches!(db.get().await, Err(ProvideError::Closed)));
}
