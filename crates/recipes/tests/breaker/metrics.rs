//! The breaker's metrics (feature `metrics`): what a breaker records, read exactly from a
//! recorder local to the test.
#![cfg(feature = "metrics")]

use std::time::Duration;

use green_tea_recipes::circuit_breaker::{CircuitBreaker, Config, ManualClock};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use metrics_util::{CompositeKey, MetricKind};

/// Runs `body` on a current-thread runtime with `recorder` as this thread's recorder: the
/// breaker's handles, and those a transition registers, all land in it.
fn recorded(body: impl std::future::Future<Output = ()>) -> Recorded {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(body)
    });
    // One snapshot: a debugging recorder's snapshot takes the counters' values since the last.
    Recorded(snapshotter.snapshot().into_vec())
}

type Series = (
    CompositeKey,
    Option<metrics::Unit>,
    Option<metrics::SharedString>,
    DebugValue,
);

/// Every series recorded.
struct Recorded(Vec<Series>);

/// The value of the series `name` whose labels include `labels`.
fn value<'a>(
    recorded: &'a Recorded,
    kind: MetricKind,
    name: &str,
    labels: &[(&str, &str)],
) -> Option<&'a DebugValue> {
    recorded.0.iter().find_map(|(key, _, _, value)| {
        let key_matches = key.kind() == kind
            && key.key().name() == name
            && labels.iter().all(|(k, v)| {
                key.key()
                    .labels()
                    .any(|label| label.key() == *k && label.value() == *v)
            });
        key_matches.then_some(value)
    })
}

fn counter(recorded: &Recorded, name: &str, labels: &[(&str, &str)]) -> u64 {
    match value(recorded, MetricKind::Counter, name, labels) {
        Some(DebugValue::Counter(n)) => *n,
        other => panic!("no counter {name} {labels:?}: {other:?}"),
    }
}

fn gauge(recorded: &Recorded, name: &str, labels: &[(&str, &str)]) -> f64 {
    match value(recorded, MetricKind::Gauge, name, labels) {
        Some(DebugValue::Gauge(g)) => g.into_inner(),
        other => panic!("no gauge {name} {labels:?}: {other:?}"),
    }
}

#[test]
fn calls_state_and_transitions_are_recorded_under_the_breakers_name() {
    let snapshotter = recorded(async {
        let clock = ManualClock::new();
        let breaker = CircuitBreaker::new(
            Config::new(2, Duration::from_secs(1))
                .name("billing")
                .clock(clock.clone()),
        );
        let up = || async { Ok::<_, &str>("ok") };
        let down = || async { Err::<&str, _>("down") };
        breaker.call(up).await.unwrap();
        assert!(breaker.call(down).await.is_err());
        assert!(breaker.call(down).await.is_err()); // opens
        assert!(breaker.call(up).await.is_err()); // refused while open
        clock.set(Duration::from_secs(2)); // the window elapsed: the next call is a trial
        breaker.call(up).await.unwrap(); // closes
    });
    let billing = ("breaker", "billing");
    let calls = |outcome| {
        counter(
            &snapshotter,
            "green_tea.breaker.calls",
            &[billing, ("outcome", outcome)],
        )
    };
    assert_eq!(calls("success"), 2);
    assert_eq!(calls("failure"), 2);
    assert_eq!(calls("ignored"), 0);
    assert_eq!(calls("not_permitted"), 1);
    let transitions = |from, to| {
        counter(
            &snapshotter,
            "green_tea.breaker.transitions",
            &[billing, ("from", from), ("to", to)],
        )
    };
    assert_eq!(transitions("closed", "open"), 1);
    assert_eq!(transitions("open", "half_open"), 1);
    assert_eq!(transitions("half_open", "closed"), 1);
    let state = |state| {
        gauge(
            &snapshotter,
            "green_tea.breaker.state",
            &[billing, ("state", state)],
        )
    };
    assert_eq!(state("closed"), 1.0);
    for other in ["open", "half_open", "forced_open", "forced_closed"] {
        assert_eq!(state(other), 0.0, "{other}");
    }
}

#[test]
fn an_operator_hold_moves_the_state_gauge() {
    let snapshotter = recorded(async {
        let breaker = CircuitBreaker::new(Config::new(3, Duration::from_secs(1)).name("search"));
        breaker.force_open();
        assert!(breaker.call(|| async { Ok::<_, &str>(()) }).await.is_err());
    });
    let search = ("breaker", "search");
    assert_eq!(
        gauge(
            &snapshotter,
            "green_tea.breaker.state",
            &[search, ("state", "forced_open")]
        ),
        1.0
    );
    assert_eq!(
        gauge(
            &snapshotter,
            "green_tea.breaker.state",
            &[search, ("state", "closed")]
        ),
        0.0
    );
    assert_eq!(
        counter(
            &snapshotter,
            "green_tea.breaker.calls",
            &[search, ("outcome", "not_permitted")]
        ),
        1
    );
}

#[cfg(feature = "redis")]
#[path = "../support/redis.rs"]
mod redis_server;

/// A shared store's errors are counted by kind and its degraded state is a gauge, on a real
/// Redis that is killed: a Redis gone is a `connection` error (or a `timeout`), and every kind
/// has its series from the start, at 0 until it happens (`noscript` counts the first refresh
/// on a fresh Redis, which had not got the script and was sent its body).
#[cfg(feature = "redis")]
#[test]
fn a_shared_stores_errors_and_degraded_state_are_recorded() {
    use green_tea_recipes::circuit_breaker::shared::SharedConfig;

    let Some(mut server) = redis_server::RedisServer::start() else {
        return;
    };
    let mut degraded_seen = Vec::new();
    let mut errors_seen = Vec::new();
    let recorded = recorded(async {
        let breaker = CircuitBreaker::shared(
            Config::new(2, Duration::from_secs(1))
                .call_timeout(Duration::from_millis(300))
                .name("billing"),
            SharedConfig::new(server.url())
                .refresh_interval(Duration::from_secs(3600))
                .timeouts(Duration::from_millis(200), Duration::from_millis(200)),
        )
        .await
        .unwrap();
        assert!(breaker.sync().await, "Redis answers");
        server.kill();
        assert!(!breaker.sync().await, "Redis is gone");
        degraded_seen.push(breaker.degraded());
        errors_seen = breaker.shared_errors();
    });
    assert_eq!(degraded_seen, [true]);
    let billing = ("breaker", "billing");
    let errors = |kind: &str| {
        counter(
            &recorded,
            "green_tea.breaker.store.errors",
            &[billing, ("kind", kind)],
        )
    };
    assert!(errors("connection") + errors("timeout") >= 1);
    // A fresh Redis has none of the scripts: the first refresh sent its body.
    assert_eq!(errors("noscript"), 1);
    for kind in [
        "moved",
        "tryagain",
        "clusterdown",
        "readonly",
        "sentinel",
        "other",
    ] {
        assert_eq!(errors(kind), 0, "{kind}");
    }
    // What the breaker says it met is what the metric counted.
    for (kind, count) in errors_seen {
        assert_eq!(errors(kind), count, "{kind}");
    }
    assert_eq!(
        gauge(&recorded, "green_tea.breaker.store.degraded", &[billing]),
        1.0
    );
}
