//! The shared breaker on a real Redis: in-process instances sharing one throwaway
//! `redis-server` (support/redis.rs), each step awaited with `sync()` (everything published has
//! reached Redis and a refresh completed), never a sleep standing in for a signal. The only
//! waits on the clock are the fleet's own windows and leases, which are Redis's time passing.
//! Tests 1 to 7 of issue 14, and the closed path's commandstats.
#![cfg(feature = "redis")]

#[path = "../support/redis.rs"]
mod redis_server;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use green_tea_recipes::circuit_breaker::shared::SharedConfig;
use green_tea_recipes::circuit_breaker::{
    BreakerError, BreakerState, CircuitBreaker, Config, ManualClock,
};
use redis_server::RedisServer;

const WINDOW: Duration = Duration::from_millis(150);
const CALL_TIMEOUT: Duration = Duration::from_millis(300);
const LEASE_MARGIN: Duration = Duration::from_millis(50);
/// Only to fail instead of hanging; never a timing assertion.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn config(threshold: u32) -> Config {
    Config::new(threshold, WINDOW)
        .call_timeout(CALL_TIMEOUT)
        .name("billing")
}

/// Test settings: a long claim timeout (a loaded machine must not turn a slow claim into a
/// refused call), short Redis timeouts (a fault shows quickly), an hour between background
/// refreshes (every refresh a test relies on is a `sync()`).
fn sharing(server: &RedisServer, instance: &str) -> SharedConfig {
    SharedConfig::new(server.url())
        .instance(instance)
        .refresh_interval(Duration::from_secs(3600))
        .claim_timeout(Duration::from_secs(5), 3)
        .lease_margin(LEASE_MARGIN)
        .timeouts(Duration::from_millis(200), Duration::from_millis(200))
}

async fn fleet(server: &RedisServer, config: impl Fn() -> Config, n: usize) -> Vec<CircuitBreaker> {
    let mut fleet = Vec::new();
    for i in 0..n {
        let instance = format!("instance-{i}");
        let breaker = CircuitBreaker::shared(config(), sharing(server, &instance))
            .await
            .unwrap();
        fleet.push(breaker);
    }
    fleet
}

/// Two passes: the first publishes every instance's news (a trial's verdict, say), the second
/// makes sure every instance has refreshed after all of it.
/// A plain connection of the test's own (INFO, CONFIG RESETSTAT, CLIENT PAUSE).
fn admin(server: &RedisServer) -> redis::Connection {
    redis::Client::open(server.url())
        .and_then(|client| client.get_connection())
        .expect("a connection to the test's redis-server")
}

async fn sync_all(fleet: &[CircuitBreaker]) {
    for _ in 0..2 {
        for breaker in fleet {
            assert!(within(breaker.sync()).await, "Redis answered the sync");
        }
    }
}

async fn within<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(HANG_GUARD, future)
        .await
        .expect("did not hang")
}

/// An upstream that counts the calls reaching it.
#[derive(Clone, Default)]
struct Upstream {
    hits: Arc<AtomicU64>,
    down: Arc<AtomicBool>,
}

impl Upstream {
    fn down() -> Self {
        let upstream = Upstream::default();
        upstream.down.store(true, SeqCst);
        upstream
    }

    async fn call(&self, breaker: &CircuitBreaker) -> Result<(), BreakerError<&'static str>> {
        breaker
            .call(|| async {
                self.hits.fetch_add(1, SeqCst);
                if self.down.load(SeqCst) {
                    Err("down")
                } else {
                    Ok(())
                }
            })
            .await
    }

    fn hits(&self) -> u64 {
        self.hits.load(SeqCst)
    }
}

fn states(fleet: &[CircuitBreaker]) -> Vec<BreakerState> {
    fleet.iter().map(CircuitBreaker::state).collect()
}

/// Test 1: one call at a time, round robin, until every instance fails fast.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_fleet_discovers_a_down_upstream_once() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    const THRESHOLD: u32 = 3;
    const INSTANCES: usize = 3;

    let shared = fleet(&server, || config(THRESHOLD), INSTANCES).await;
    let upstream = Upstream::down();
    let mut i = 0;
    while !states(&shared).iter().all(|s| *s == BreakerState::Open) {
        let _ = upstream.call(&shared[i % INSTANCES]).await;
        sync_all(&shared).await;
        i += 1;
        assert!(i < 100, "the fleet never opened");
    }
    let with_sharing = upstream.hits();

    let local: Vec<CircuitBreaker> = (0..INSTANCES)
        .map(|_| CircuitBreaker::new(config(THRESHOLD)))
        .collect();
    let upstream = Upstream::down();
    let mut i = 0;
    while !states(&local).iter().all(|s| *s == BreakerState::Open) {
        let _ = upstream.call(&local[i % INSTANCES]).await;
        i += 1;
    }
    let without_sharing = upstream.hits();

    println!(
        "calls reaching the down upstream before all {INSTANCES} instances fail fast \
         (threshold {THRESHOLD}): {with_sharing} shared, {without_sharing} without sharing"
    );
    assert!(with_sharing < u64::from(THRESHOLD) + INSTANCES as u64);
    assert_eq!(without_sharing, u64::from(THRESHOLD) * INSTANCES as u64);
}

/// Opens the fleet through `fleet[0]` (threshold 1) and waits out its window.
async fn open_and_wait_out(fleet: &[CircuitBreaker], upstream: &Upstream) {
    upstream.down.store(true, SeqCst);
    let _ = upstream.call(&fleet[0]).await;
    sync_all(fleet).await;
    assert!(
        states(fleet).iter().all(|s| *s == BreakerState::Open),
        "{:?}",
        states(fleet)
    );
    // The window is Redis's time passing; there is nothing to await but the clock.
    tokio::time::sleep(WINDOW + Duration::from_millis(20)).await;
    sync_all(fleet).await;
    upstream.down.store(false, SeqCst);
}

/// Test 2: 64 callers over three instances, 20 times: one trial each time.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn after_the_window_exactly_one_trial_reaches_the_upstream_fleet_wide() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let shared = Arc::new(fleet(&server, || config(1), 3).await);
    let upstream = Upstream::default();
    for round in 0..20 {
        open_and_wait_out(&shared, &upstream).await;
        let before = upstream.hits();
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let (refused_tx, mut refused_rx) = tokio::sync::mpsc::unbounded_channel();
        let mut callers = Vec::new();
        for caller in 0..64 {
            let (shared, upstream, gate, refused) = (
                Arc::clone(&shared),
                upstream.clone(),
                Arc::clone(&gate),
                refused_tx.clone(),
            );
            callers.push(tokio::spawn(async move {
                let breaker = &shared[caller % 3];
                let result = breaker
                    .call(|| async {
                        upstream.hits.fetch_add(1, SeqCst);
                        // The trial stays in flight until every other caller has been refused.
                        let _ = gate.acquire().await;
                        Ok::<_, &str>(())
                    })
                    .await;
                if result.is_err() {
                    let _ = refused.send(());
                }
                result.is_ok()
            }));
        }
        for _ in 0..63 {
            within(refused_rx.recv()).await.expect("a refusal");
        }
        // The winner of the claim may not have reached the upstream yet (its task is polled
        // after Redis's answer): wait for it, the other 63 refused meanwhile.
        within(async {
            while upstream.hits() == before {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        })
        .await;
        assert_eq!(upstream.hits() - before, 1, "round {round}: one trial");
        gate.add_permits(64);
        let mut admitted = 0;
        for caller in callers {
            admitted += usize::from(within(caller).await.unwrap());
        }
        assert_eq!(admitted, 1, "round {round}");
        assert_eq!(
            upstream.hits() - before,
            1,
            "round {round}: still one trial"
        );
        sync_all(&shared).await;
        assert!(
            states(&shared).iter().all(|s| *s == BreakerState::Closed),
            "round {round}: the trial's success closed the fleet: {:?}",
            states(&shared)
        );
    }
}

/// Test 3: the trial's instance dies mid-trial, without clean-up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_whose_instance_died_lapses_and_another_instance_trials() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut shared = fleet(&server, || config(1), 3).await;
    let upstream = Upstream::default();
    open_and_wait_out(&shared, &upstream).await;

    let before = upstream.hits();
    let dying = shared.remove(0);
    let entered = tokio::sync::Notify::new();
    let mut trial = Box::pin(dying.call(|| async {
        upstream.hits.fetch_add(1, SeqCst);
        entered.notify_one();
        std::future::pending::<Result<(), ()>>().await
    }));
    tokio::select! {
        _ = &mut trial => panic!("the trial never ends"),
        () = entered.notified() => {}
    }
    // The instance dies: its call is never finished nor dropped (nothing runs that could give
    // the lease back), and its breaker goes, taking its background task with it.
    std::mem::forget(trial);
    drop(dying);

    // The others refuse while the lease lives (one ask, then the cached lease)...
    assert!(upstream.call(&shared[0]).await.unwrap_err().is_open());
    assert!(upstream.call(&shared[1]).await.unwrap_err().is_open());
    assert_eq!(
        upstream.hits() - before,
        1,
        "only the dead instance's trial"
    );
    // ...and once it has lapsed (Redis's PX), one of them trials and closes the fleet.
    tokio::time::sleep(CALL_TIMEOUT + LEASE_MARGIN + Duration::from_millis(20)).await;
    upstream.call(&shared[0]).await.expect("the second trial");
    assert_eq!(upstream.hits() - before, 2);
    sync_all(&shared).await;
    assert_eq!(
        states(&shared),
        [BreakerState::Closed, BreakerState::Closed]
    );
}

/// Calls on every instance complete while Redis is in trouble (closed ones go through, the
/// failures open them locally), and the instances say they are degraded.
async fn calls_complete_on_local_state(fleet: &[CircuitBreaker]) {
    let upstream = Upstream::default();
    for breaker in fleet {
        within(upstream.call(breaker)).await.unwrap();
        assert!(!within(breaker.sync()).await, "Redis is in trouble");
        assert!(breaker.degraded());
        assert!(breaker.counters().degraded);
    }
    let down = Upstream::down();
    for _ in 0..2 {
        let _ = within(down.call(&fleet[0])).await;
    }
    assert_eq!(
        fleet[0].state(),
        BreakerState::Open,
        "opened on its own count"
    );
    fleet[0].release();
}

/// Sharing resumes: syncs until Redis answers, then a trip on one opens the other.
async fn sharing_resumes(fleet: &[CircuitBreaker]) {
    for breaker in fleet {
        within(async {
            while !breaker.sync().await {
                tokio::time::sleep(Duration::from_millis(50)).await; // the reconnect's pace
            }
        })
        .await;
        assert!(!breaker.degraded());
    }
    let down = Upstream::down();
    for _ in 0..2 {
        let _ = down.call(&fleet[0]).await;
    }
    sync_all(fleet).await;
    assert_eq!(states(fleet), [BreakerState::Open, BreakerState::Open]);
    fleet[0].release();
    sync_all(fleet).await;
    assert_eq!(states(fleet), [BreakerState::Closed, BreakerState::Closed]);
}

/// Test 4: killed and restarted, black-holed (SIGSTOP), paused (CLIENT PAUSE).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_in_trouble_degrades_to_local_state_and_sharing_resumes() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let shared = fleet(&server, || config(2), 2).await;
    sharing_resumes(&shared).await;

    server.kill();
    calls_complete_on_local_state(&shared).await;
    server.restart(); // empty: keys and the script cache are gone (NOSCRIPT, then EVAL)
    sharing_resumes(&shared).await;

    server.pause_process();
    calls_complete_on_local_state(&shared).await;
    server.resume_process();
    sharing_resumes(&shared).await;

    let mut admin = admin(&server);
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(3_000)
        .arg("ALL")
        .query(&mut admin)
        .unwrap();
    calls_complete_on_local_state(&shared).await;
    // No UNPAUSE: it would wait out the pause like every other command.
    sharing_resumes(&shared).await;
}

/// Test 5: clocks hours apart agree on the window, because Redis's clock decides it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_with_clocks_hours_apart_agree_on_the_window() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let hours = [0_u64, 3, 7];
    let mut shared = Vec::new();
    for (i, h) in hours.iter().enumerate() {
        let clock = ManualClock::new();
        clock.set(Duration::from_secs(h * 3600));
        let breaker = CircuitBreaker::shared(
            config(1).clock(clock),
            sharing(&server, &format!("skewed-{i}")),
        )
        .await
        .unwrap();
        shared.push(breaker);
    }
    let upstream = Upstream::down();
    let _ = upstream.call(&shared[0]).await;
    sync_all(&shared).await;
    for breaker in &shared {
        match upstream.call(breaker).await {
            Err(BreakerError::Open { retry_after }) => assert!(retry_after <= WINDOW),
            other => panic!("open everywhere, got {other:?}"),
        }
    }
    assert_eq!(upstream.hits(), 1);
    // No instance clock moves; only Redis's does.
    tokio::time::sleep(WINDOW + Duration::from_millis(20)).await;
    sync_all(&shared).await;
    upstream.down.store(false, SeqCst);
    upstream
        .call(&shared[2])
        .await
        .expect("the window elapsed for everyone");
    sync_all(&shared).await;
    assert!(states(&shared).iter().all(|s| *s == BreakerState::Closed));
}

/// Test 6: quorum 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_quorum_of_two_one_instance_opens_only_itself() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut shared = Vec::new();
    for i in 0..3 {
        let breaker =
            CircuitBreaker::shared(config(3), sharing(&server, &format!("q-{i}")).quorum(2))
                .await
                .unwrap();
        shared.push(breaker);
    }
    let upstream = Upstream::down();
    for _ in 0..3 {
        let _ = upstream.call(&shared[0]).await;
    }
    sync_all(&shared).await;
    assert_eq!(
        states(&shared),
        [
            BreakerState::Open,
            BreakerState::Closed,
            BreakerState::Closed
        ],
        "one instance alone opens only itself"
    );
    let _ = upstream.call(&shared[1]).await; // a second instance fails: the quorum is met
    sync_all(&shared).await;
    assert!(
        states(&shared).iter().all(|s| *s == BreakerState::Open),
        "{:?}",
        states(&shared)
    );
}

/// Test 7: fleet-wide holds; a new instance starts open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operators_hold_reaches_every_instance_and_new_ones_start_open() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let shared = fleet(&server, || config(3), 3).await;
    shared[0].force_open();
    sync_all(&shared).await;
    assert!(
        states(&shared)
            .iter()
            .all(|s| *s == BreakerState::ForcedOpen)
    );
    let late = CircuitBreaker::shared(config(3), sharing(&server, "late"))
        .await
        .unwrap();
    assert_eq!(late.state(), BreakerState::ForcedOpen, "starts open");

    shared[1].force_closed();
    sync_all(&shared).await;
    assert!(
        states(&shared)
            .iter()
            .all(|s| *s == BreakerState::ForcedClosed)
    );

    shared[2].release();
    sync_all(&shared).await;
    assert!(late.sync().await);
    assert!(states(&shared).iter().all(|s| *s == BreakerState::Closed));
    assert_eq!(late.state(), BreakerState::Closed);

    // A fleet opened by failures (not by a hold) also opens a newcomer.
    let upstream = Upstream::down();
    for _ in 0..3 {
        let _ = upstream.call(&shared[0]).await;
    }
    assert!(shared[0].sync().await);
    let newcomer = CircuitBreaker::shared(config(3), sharing(&server, "newcomer"))
        .await
        .unwrap();
    assert_eq!(newcomer.state(), BreakerState::Open);
}

/// How many times `command` ran, as `INFO commandstats` (`info`) says (0 if never).
fn calls(info: &str, command: &str) -> u64 {
    info.lines()
        .find_map(|line| line.strip_prefix(&format!("cmdstat_{command}:calls=")))
        .and_then(|rest| rest.split(',').next())
        .map_or(0, |n| n.parse().unwrap())
}

/// A closed, healthy breaker sends Redis nothing per call: around 10,000 closed calls, no write
/// command at all, and no more reads than refreshes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_calls_send_redis_nothing() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let shared = fleet(&server, || config(3), 1).await;
    let breaker = &shared[0];
    let upstream = Upstream::default();
    upstream.call(breaker).await.unwrap();
    assert!(breaker.sync().await);

    let mut admin = admin(&server);
    let _: () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query(&mut admin)
        .unwrap();
    let refreshes = breaker.shared_refreshes();
    for _ in 0..10_000 {
        upstream.call(breaker).await.unwrap();
    }
    assert!(breaker.sync().await);
    let refreshes = breaker.shared_refreshes() - refreshes;

    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut admin)
        .unwrap();
    let calls = |command: &str| calls(&info, command);
    println!("commandstats around 10,000 closed calls ({refreshes} refresh(es)):\n{info}");
    for write in [
        "set", "del", "incr", "incrby", "sadd", "pexpire", "hset", "eval", "evalsha", "script",
    ] {
        assert_eq!(calls(write), 0, "no `{write}`");
    }
    assert!(refreshes >= 1);
    assert!(
        calls("evalsha_ro") <= refreshes,
        "reads: {}",
        calls("evalsha_ro")
    );
}

/// A failure batch whose answer was lost is sent again, and counted once: writes paused
/// (`CLIENT PAUSE WRITE` queues them in Redis), the publisher's round gives up at its response
/// timeout and keeps the batch; unpaused, Redis runs the paused sendings and then the next,
/// merged with a failure queued since. The fleet's count is every failure once (6), not the
/// paused batch twice or more (8 and up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_batch_sent_again_after_a_lost_answer_counts_once() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let shared = fleet(&server, || config(100), 1).await;
    let breaker = &shared[0];
    let down = Upstream::down();
    let mut admin = admin(&server);
    let fails = |admin: &mut redis::Connection| -> u64 {
        redis::cmd("GET")
            .arg("green-tea:breaker:{billing}:fails")
            .query::<Option<u64>>(admin)
            .unwrap()
            .unwrap_or(0)
    };
    for _ in 0..3 {
        let _ = within(down.call(breaker)).await;
    }
    assert!(within(breaker.sync()).await);
    assert_eq!(fails(&mut admin), 3);

    let _: () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query(&mut admin)
        .unwrap();
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(60_000)
        .arg("WRITE")
        .query(&mut admin)
        .unwrap();
    for _ in 0..2 {
        let _ = within(down.call(breaker)).await;
    }
    assert!(
        !within(breaker.sync()).await,
        "the paused batch was not answered in time"
    );
    assert_eq!(fails(&mut admin), 3, "the batch waits in Redis");
    let _ = within(down.call(breaker)).await;
    let _: () = redis::cmd("CLIENT")
        .arg("UNPAUSE")
        .query(&mut admin)
        .unwrap();
    within(async {
        while !breaker.sync().await {
            tokio::time::sleep(Duration::from_millis(20)).await; // the reconnect's pace
        }
    })
    .await;
    // The sendings all ran (the paused ones after the pause), and each failure counted once.
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut admin)
        .unwrap();
    let evalsha = calls(&info, "evalsha");
    // (Each failure wakes the publisher, so the paused sendings may be more than one.)
    assert!(evalsha >= 2, "the paused sending and the next:\n{info}");
    assert_eq!(fails(&mut admin), 6, "each failure counted once");
    assert_eq!(breaker.state(), BreakerState::Closed);
}

/// A port nothing listens on (bound, then let go).
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// Test 5 of issue 28: bad configuration is refused when the breaker is made, naming the value,
/// on every topology, and nothing hangs: an empty name (its hash tag would be `{}`), braces in
/// the name or the prefix (they would move the hash tag), a URL of no topology, and a Cluster or
/// sentinels none of whose addresses answers. One node that does not answer is not refused:
/// the breaker starts degraded, on local state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_configuration_is_refused_when_the_breaker_is_made() {
    use green_tea_recipes::circuit_breaker::shared::SharedError;
    let (a, b) = (closed_port(), closed_port());
    let single = format!("redis://127.0.0.1:{a}/");
    let cluster = format!("redis+cluster://127.0.0.1:{a},127.0.0.1:{b}");
    let sentinel = format!("redis+sentinel://127.0.0.1:{a},127.0.0.1:{b}/gt-primary");
    let quick = |url: &str| {
        SharedConfig::new(url).timeouts(Duration::from_millis(200), Duration::from_millis(200))
    };
    for url in [&single, &cluster, &sentinel] {
        let refused = |config: Config, shared: SharedConfig| async move {
            within(CircuitBreaker::shared(config, shared))
                .await
                .unwrap_err()
        };
        assert_eq!(
            refused(config(3).name(""), quick(url)).await,
            SharedError::EmptyName
        );
        let named = refused(config(3).name("bill{ing}"), quick(url)).await;
        assert_eq!(
            named,
            SharedError::BraceInName {
                name: "bill{ing}".to_owned()
            }
        );
        assert!(named.to_string().contains("`bill{ing}`"), "{named}");
        let prefixed = refused(config(3), quick(url).prefix("app:{shared}")).await;
        assert_eq!(
            prefixed,
            SharedError::BraceInPrefix {
                prefix: "app:{shared}".to_owned()
            }
        );
        assert!(
            prefixed.to_string().contains("`app:{shared}`"),
            "{prefixed}"
        );
    }
    for (url, topology) in [
        (
            &cluster,
            format!("Redis Cluster 127.0.0.1:{a},127.0.0.1:{b}"),
        ),
        (
            &sentinel,
            format!("Redis Sentinel `gt-primary` at 127.0.0.1:{a},127.0.0.1:{b}"),
        ),
    ] {
        let error = within(CircuitBreaker::shared(config(3), quick(url)))
            .await
            .unwrap_err();
        let SharedError::Unreachable {
            topology: named, ..
        } = &error
        else {
            panic!("{url}: {error:?}");
        };
        assert_eq!(*named, topology);
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot reach {topology}: ")),
            "{error}"
        );
    }
    let alone = within(CircuitBreaker::shared(config(3), quick(&single)))
        .await
        .expect("one node down is not an error");
    assert!(alone.degraded());
    for url in [
        "redis+cluster://",
        "redis+cluster://127.0.0.1",
        "redis+cluster://127.0.0.1:7000/0",
        "redis+sentinel://127.0.0.1:26379",
        "redis+sentinel://127.0.0.1:26379/",
        "memcached://127.0.0.1:11211",
        "rediss://127.0.0.1:6380/", // no TLS in the store's client
    ] {
        let error = within(CircuitBreaker::shared(config(3), quick(url)))
            .await
            .unwrap_err();
        assert!(
            matches!(error, SharedError::InvalidUrl { .. }),
            "{url}: {error:?}"
        );
    }
}

/// The shared breaker's futures cross threads (a multi-threaded runtime, a spawned task).
#[allow(dead_code, clippy::let_underscore_future)]
fn its_futures_are_send() {
    fn send<T: Send>(_: T) {}
    let breaker = CircuitBreaker::new(config(1));
    send(CircuitBreaker::shared(
        config(1),
        SharedConfig::new("redis://127.0.0.1/"),
    ));
    send(breaker.sync());
    send(breaker.call(|| async { Ok::<_, ()>(()) }));
    fn sync_and_send<T: Send + Sync>() {}
    sync_and_send::<CircuitBreaker>();
}
