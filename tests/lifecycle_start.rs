//! `start()`: build eagerly along the graph; on failure, undo and close.

mod support;

use std::sync::atomic::Ordering;

use green_tea::{Container, ProvideError};
use support::{Log, OnProvide, Probe, Service};

#[tokio::test]
async fn start_builds_every_provider_once() {
    let log = Log::default();
    let probes = [
        Probe::new("base", &[], &log),
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
    container.build_all().await.unwrap();
    assert!(counters.iter().all(|c| c.load(Ordering::SeqCst) == 1));
    let order = log.names("provide");
    assert_eq!((order[0].as_str(), order[3].as_str()), ("base", "top"));
    container.close().await.unwrap();
}

#[tokio::test]
async fn start_keys_builds_only_their_slices() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("base", &[], &log))
        .provider(Probe::new("top", &["base"], &log))
        .provider(Probe::new("other", &[], &log))
        .build()
        .unwrap();
    container.build_keys(&["top"]).await.unwrap();
    assert_eq!(log.names("provide"), ["base", "top"]);
    assert!(matches!(
        container.build_keys(&["nope"]).await,
        Err(ProvideError::UnknownKey { .. })
    ));
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_failing_start_disposes_what_it_built_in_reverse_and_closes() {
    let log = Log::default();
    let never = Probe::new("after", &["top"], &log);
    let never_builds = never.counter();
    let container = Container::builder()
        .provider(Probe::new("base", &[], &log))
        .provider(Probe::new("mid", &["base"], &log))
        .provider(Probe::new("top", &["mid"], &log).on_provide(OnProvide::FailTimes(1.into())))
        .provider(never)
        .build()
        .unwrap();

    let err = container.build_all().await.unwrap_err();
    let ProvideError::Failed {
        provider,
        needed_by,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(provider, "top");
    assert!(
        needed_by.is_empty() || needed_by == &["after"],
        "{needed_by:?}"
    );
    assert_eq!(never_builds.load(Ordering::SeqCst), 0);
    assert_eq!(log.names("dispose"), ["mid", "base"]);
    assert!(container.is_closed());
    assert!(matches!(
        container.get::<Service>("base").await,
        Err(ProvideError::Closed)
    ));
}
