//! The shared breaker on the topologies fleets run (issue 28), on real servers the tests start
//! (support/redis_topology.rs): a Redis Cluster of 3 primaries and 3 replicas, and a primary
//! and a replica behind 3 sentinels, with short node and down-after timeouts so a failover
//! takes a second or two. Instances are in-process breakers, each step awaited with `sync()`;
//! the only waits on the clock are the fleet's windows and Redis's failovers.
//!
//! What the single node promises holds on both: the fleet discovers a down upstream within
//! threshold + instances − 1 calls, sends one trial, and closed calls send no write command. A
//! primary killed (or failed over) degrades the breaker to local state without failing a call,
//! and sharing resumes on the promoted node: on a Cluster each missing script is sent whole
//! (`noscript`); behind Sentinel the link loads every script on a primary before its first
//! command, so the first trip after a failover resends none and keeps the bound (issue 41). A
//! slot resharded under traffic loses none of the fleet's count. A failover that loses
//! acknowledged writes (the replica held behind by a relay) costs what the guide says,
//! measured: a second trial, a re-learnt count, and no generation handed out twice.
#![cfg(feature = "redis")]

use crate::redis_topology;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use green_tea_recipes::circuit_breaker::shared::{SharedConfig, SharedError};
use green_tea_recipes::circuit_breaker::{BreakerError, BreakerState, CircuitBreaker, Config};
use redis_topology::{RedisCluster, RedisSentinels};

const WINDOW: Duration = Duration::from_millis(150);
const CALL_TIMEOUT: Duration = Duration::from_millis(300);
/// Only to fail instead of hanging; never a timing assertion.
const HANG_GUARD: Duration = Duration::from_secs(60);

fn config(name: &str, threshold: u32) -> Config {
    Config::new(threshold, WINDOW)
        .call_timeout(CALL_TIMEOUT)
        .name(name)
}

/// As the single-node tests: a long claim timeout (a loaded machine must not turn a slow claim
/// into a refused call), short Redis timeouts, an hour between background refreshes (every
/// refresh a test relies on is a `sync()`).
fn sharing(url: &str, instance: &str) -> SharedConfig {
    SharedConfig::new(url)
        .instance(instance)
        .refresh_interval(Duration::from_secs(3600))
        .claim_timeout(Duration::from_secs(5), 3)
        .lease_margin(Duration::from_millis(50))
        .timeouts(Duration::from_millis(300), Duration::from_millis(300))
}

async fn fleet(url: &str, name: &str, threshold: u32, n: usize) -> Vec<CircuitBreaker> {
    fleet_of(url, name, n, || config(name, threshold)).await
}

/// `n` instances of the breaker `config` makes, sharing through `url`.
async fn fleet_of(
    url: &str,
    name: &str,
    n: usize,
    config: impl Fn() -> Config,
) -> Vec<CircuitBreaker> {
    let mut fleet = Vec::new();
    for i in 0..n {
        let shared = sharing(url, &format!("{name}-instance-{i}"));
        let breaker = within(CircuitBreaker::shared(config(), shared))
            .await
            .expect("the breaker is made");
        fleet.push(breaker);
    }
    fleet
}

async fn within<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(HANG_GUARD, future)
        .await
        .expect("did not hang")
}

async fn sync_all(fleet: &[CircuitBreaker]) {
    for _ in 0..2 {
        for breaker in fleet {
            assert!(within(breaker.sync()).await, "Redis answered the sync");
        }
    }
}

fn states(fleet: &[CircuitBreaker]) -> Vec<BreakerState> {
    fleet.iter().map(CircuitBreaker::state).collect()
}

fn errors(breaker: &CircuitBreaker, kind: &str) -> u64 {
    breaker
        .shared_errors()
        .into_iter()
        .find(|(k, _)| *k == kind)
        .map_or(0, |(_, n)| n)
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

/// One call at a time, round robin, until every instance fails fast: the calls that reached
/// the down upstream.
async fn discover_a_down_upstream(fleet: &[CircuitBreaker]) -> u64 {
    let upstream = Upstream::down();
    let mut i = 0;
    while !states(fleet).iter().all(|s| *s == BreakerState::Open) {
        let _ = within(upstream.call(&fleet[i % fleet.len()])).await;
        sync_all(fleet).await;
        i += 1;
        assert!(i < 100, "the fleet never opened");
    }
    upstream.hits()
}

/// After the fleet's window (Redis's time passing), 64 callers over the fleet at once: the
/// calls that reached the upstream, which holds the one admitted until the others are refused.
async fn trial_after_the_window(fleet: &Arc<Vec<CircuitBreaker>>) -> u64 {
    tokio::time::sleep(WINDOW + Duration::from_millis(20)).await;
    sync_all(fleet).await;
    let upstream = Upstream::default();
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let (refused_tx, mut refused_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut callers = Vec::new();
    for caller in 0..64 {
        let (fleet, upstream, gate, refused) = (
            Arc::clone(fleet),
            upstream.clone(),
            Arc::clone(&gate),
            refused_tx.clone(),
        );
        callers.push(tokio::spawn(async move {
            let breaker = &fleet[caller % fleet.len()];
            let result = breaker
                .call(|| async {
                    upstream.hits.fetch_add(1, SeqCst);
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
    within(async {
        while upstream.hits() == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await; // the winner's task is polled
        }
    })
    .await;
    gate.add_permits(64);
    let mut admitted = 0;
    for caller in callers {
        admitted += u64::from(within(caller).await.unwrap());
    }
    assert_eq!(admitted, upstream.hits());
    sync_all(fleet).await;
    assert!(
        states(fleet).iter().all(|s| *s == BreakerState::Closed),
        "the trial's success closed the fleet: {:?}",
        states(fleet)
    );
    upstream.hits()
}

/// Syncs until Redis answers (the client's reconnect, a failover's pace), then a trip on one
/// instance opens the others, and a release closes them.
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
    fleet[0].force_open();
    settles(fleet, BreakerState::ForcedOpen).await;
    fleet[0].release();
    settles(fleet, BreakerState::Closed).await;
}

/// Syncs every instance until all are in `state`. A sync may still fail once after a topology
/// change (a write that met `READONLY` on a demoted primary moves the link, and the next round
/// publishes what was kept), so this does not insist that each one answers.
async fn settles(fleet: &[CircuitBreaker], state: BreakerState) {
    within(async {
        loop {
            for breaker in fleet {
                breaker.sync().await;
            }
            if states(fleet).iter().all(|s| *s == state) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await; // the next round's pace
        }
    })
    .await;
}

/// Names whose hash tags are served by `count` different primaries, `billing` first.
fn names_on_different_primaries(cluster: &RedisCluster, count: usize) -> Vec<(String, u16)> {
    let mut found: Vec<(String, u16)> = Vec::new();
    let candidates = ["billing".to_owned()]
        .into_iter()
        .chain((0..1000).map(|n| format!("upstream-{n}")));
    for name in candidates {
        let primary = cluster.primary_of_slot(cluster.slot_of(&format!("{{{name}}}")));
        if found.iter().all(|(_, p)| *p != primary) {
            found.push((name, primary));
        }
        if found.len() == count {
            return found;
        }
    }
    panic!("no {count} names on {count} primaries: {found:?}");
}

/// Tests 1 and 6 of issue 28: three breakers whose names hash to three different primaries,
/// three instances each, threshold 3: as on one node, at most threshold + instances − 1 calls
/// reach a down upstream before every instance fails fast, and after the window one trial
/// reaches it fleet-wide. Then, on the primary owning `{billing}`, `INFO commandstats` around
/// 10,000 closed calls: no write command, and no more script reads than refreshes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_a_cluster_three_breakers_on_three_primaries_share_as_on_one_node() {
    let Some(cluster) = RedisCluster::start(3, 1) else {
        return;
    };
    let url = cluster.url();
    const THRESHOLD: u32 = 3;
    const INSTANCES: usize = 3;
    let names = names_on_different_primaries(&cluster, 3);
    for (name, primary) in &names {
        let shared = Arc::new(fleet(&url, name, THRESHOLD, INSTANCES).await);
        let hits = discover_a_down_upstream(&shared).await;
        println!("{name} (on the primary at :{primary}): {hits} call(s) reached the down upstream");
        assert!(
            hits < u64::from(THRESHOLD) + INSTANCES as u64,
            "{name}: {hits} calls"
        );
        let trials = trial_after_the_window(&shared).await;
        assert_eq!(trials, 1, "{name}: one trial fleet-wide");
        assert!(shared.iter().all(|b| !b.degraded()));
        // Its keys are on the primary its hash tag names (the trial's success wrote `closed`).
        let closed_key = format!("green-tea:breaker:{{{name}}}:closed");
        assert_eq!(
            cluster.cli(*primary, &["EXISTS", &closed_key]),
            "1",
            "{name}"
        );
    }

    let (name, primary) = &names[0];
    assert_eq!(name, "billing");
    let shared = fleet(&url, name, THRESHOLD, 1).await;
    let breaker = &shared[0];
    let upstream = Upstream::default();
    within(upstream.call(breaker)).await.unwrap();
    assert!(within(breaker.sync()).await);
    cluster.reset_stats(*primary);
    let refreshes = breaker.shared_refreshes();
    for _ in 0..10_000 {
        upstream.call(breaker).await.unwrap();
    }
    assert!(within(breaker.sync()).await);
    let refreshes = breaker.shared_refreshes() - refreshes;
    let stats = cluster.commandstats(*primary);
    println!(
        "commandstats on :{primary} around 10,000 closed calls ({refreshes} refresh(es)): {stats:?}"
    );
    let calls = |command: &str| stats.get(command).copied().unwrap_or(0);
    for write in [
        "set",
        "del",
        "incr",
        "incrby",
        "sadd",
        "pexpire",
        "hset",
        "eval",
        "evalsha",
        "script",
        "script|load",
    ] {
        assert_eq!(calls(write), 0, "no `{write}`");
    }
    assert!(refreshes >= 1);
    assert!(
        calls("evalsha_ro") + calls("eval_ro") <= refreshes,
        "reads: {stats:?}"
    );
}

/// Test 2 of issue 28: the primary owning `{billing}` is killed (SIGKILL) while calls run on
/// two instances. No call fails for Redis's sake (the upstream is up, the breakers closed:
/// calls are decided in memory) and each completes; the breakers report degraded; once the
/// replica is promoted sharing resumes (a hold on one reaches the other), and the promoted node,
/// which never had the scripts (Redis 7 does not send `SCRIPT LOAD` to replicas), was sent
/// them whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_a_cluster_a_killed_primary_degrades_then_sharing_resumes_on_the_promoted_replica() {
    let Some(mut cluster) = RedisCluster::start(3, 1) else {
        return;
    };
    let shared = Arc::new(fleet(&cluster.url(), "billing", 3, 2).await);
    sharing_resumes(&shared).await;
    let slot = cluster.slot_of("{billing}");
    let owner = cluster.primary_of_slot(slot);
    let noscripts_before: u64 = shared.iter().map(|b| errors(b, "noscript")).sum();

    // Calls on both instances, all the while.
    let stop = Arc::new(AtomicBool::new(false));
    let runners: Vec<_> = (0..2)
        .map(|i| {
            let (shared, stop) = (Arc::clone(&shared), Arc::clone(&stop));
            tokio::spawn(async move {
                let upstream = Upstream::default();
                let (mut calls, mut failed, mut slowest) = (0_u64, 0_u64, Duration::ZERO);
                while !stop.load(SeqCst) {
                    let started = Instant::now();
                    if within(upstream.call(&shared[i])).await.is_err() {
                        failed += 1;
                    }
                    slowest = slowest.max(started.elapsed());
                    calls += 1;
                    tokio::task::yield_now().await;
                }
                (calls, failed, slowest)
            })
        })
        .collect();

    let killed = Instant::now();
    cluster.kill(owner);
    for breaker in shared.iter() {
        within(async {
            while breaker.sync().await {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(breaker.degraded(), "the store is down: degraded");
    }
    let promoted = cluster.wait_for_failover(slot, owner);
    let promoted_after = killed.elapsed();
    for breaker in shared.iter() {
        within(async {
            while !breaker.sync().await {
                tokio::time::sleep(Duration::from_millis(10)).await; // the reconnect's pace
            }
        })
        .await;
    }
    let resumed_after = killed.elapsed();
    // The calls stop before the hold below, which refuses them on purpose.
    stop.store(true, SeqCst);
    for runner in runners {
        let (calls, failed, slowest) = within(runner).await.unwrap();
        println!("{calls} calls during the failover, {failed} failed, the slowest {slowest:?}");
        assert!(calls > 0);
        assert_eq!(failed, 0, "no call failed for Redis's sake");
    }
    sharing_resumes(&shared).await;
    let noscripts_after: u64 = shared.iter().map(|b| errors(b, "noscript")).sum();
    println!(
        "primary :{owner} killed; :{promoted} promoted after {promoted_after:?}, sharing resumed \
         after {resumed_after:?}; errors: {:?}",
        shared[0].shared_errors()
    );
    assert!(
        noscripts_after > noscripts_before,
        "the promoted node had no script and was sent it"
    );
    // And a trip on one instance opens the other, on the promoted primary.
    let down = Upstream::down();
    for _ in 0..3 {
        let _ = within(down.call(&shared[0])).await;
    }
    settles(&shared, BreakerState::Open).await;
}

/// Test 3 of issue 28: `{billing}`'s slot resharded to another primary while the fleet counts
/// failures: some published before the migration, some while its keys are on their way
/// (`TRYAGAIN` or `ASK`: the breakers may degrade and keep them), the rest after (`MOVED`,
/// followed). Nothing a single node would keep is lost: the count reaches the threshold on the
/// new owner exactly when the failures add up to it, and the trip opens both instances.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_a_cluster_a_resharded_slot_loses_nothing() {
    let Some(cluster) = RedisCluster::start(3, 1) else {
        return;
    };
    const THRESHOLD: u32 = 5;
    let shared = fleet(&cluster.url(), "billing", THRESHOLD, 2).await;
    let slot = cluster.slot_of("{billing}");
    let from = cluster.primary_of_slot(slot);
    let to = *cluster
        .primaries()
        .iter()
        .find(|p| **p != from)
        .expect("another primary");
    let fails = "green-tea:breaker:{billing}:fails";
    let down = Upstream::down();
    let fail = |breaker: usize| {
        let (down, breaker) = (down.clone(), &shared[breaker]);
        async move {
            let _ = within(down.call(breaker)).await;
        }
    };

    fail(0).await;
    fail(1).await;
    sync_all(&shared).await;
    assert_eq!(cluster.cli(from, &["GET", fails]), "2");

    cluster.begin_migration(slot, from, to);
    fail(0).await;
    // Published or kept: the sync says which, and a kept failure goes out later.
    let _ = within(shared[0].sync()).await;
    let moved = cluster.migrate_keys(slot, from, to);
    assert!(moved >= 1, "the count's key moved");
    fail(1).await;
    let _ = within(shared[1].sync()).await;
    cluster.finish_migration(slot, to);
    assert_eq!(cluster.primary_of_slot(slot), to);

    // After the move: every kept failure is published on the new owner.
    for breaker in &shared {
        within(async {
            while !breaker.sync().await {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
    }
    sync_all(&shared).await;
    assert_eq!(cluster.cli(to, &["GET", fails]), "4", "no failure lost");
    assert_eq!(
        states(&shared),
        [BreakerState::Closed, BreakerState::Closed]
    );
    fail(0).await;
    sync_all(&shared).await;
    assert_eq!(
        states(&shared),
        [BreakerState::Open, BreakerState::Open],
        "the fifth failure tripped the fleet on the new owner"
    );
    println!(
        "resharded slot {slot} :{from} -> :{to}; errors met: {:?} and {:?}",
        shared[0].shared_errors(),
        shared[1].shared_errors()
    );
}

/// Test 4 of issue 28: behind Sentinel (3 sentinels, a primary and a replica), a
/// `SENTINEL FAILOVER` and then a killed primary: each time the breakers degrade or move, and
/// sharing resumes on the new primary, found through the sentinels.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn behind_sentinel_a_failover_and_a_killed_primary_then_sharing_resumes() {
    let Some(mut sentinels) = RedisSentinels::start() else {
        return;
    };
    // Sentinels that answer but know no such service: refused when made, saying so.
    let unknown = format!(
        "redis+sentinel://{}/no-such-service",
        sentinels.sentinel_addrs().join(",")
    );
    let refused = within(CircuitBreaker::shared(
        config("billing", 3),
        sharing(&unknown, "billing-unknown"),
    ))
    .await
    .expect_err("no sentinel knows the service");
    assert!(
        matches!(refused, SharedError::Unreachable { .. })
            && refused.to_string().contains("knows the service"),
        "{refused}"
    );
    let shared = fleet(&sentinels.url(), "billing", 3, 2).await;
    sharing_resumes(&shared).await;
    let first = sentinels.primary_port();

    // A sentinel lagging a failover, asked first, names the replica: its `ROLE` refuses it,
    // the next sentinel is asked, and the breaker shares through the primary, still after the
    // once-a-second recheck has asked again.
    let replica = sentinels
        .data_ports()
        .into_iter()
        .find(|&port| port != first)
        .expect("the replica");
    let lagging = lagging_sentinel(replica).await;
    let url = format!(
        "redis+sentinel://127.0.0.1:{lagging},{}/{}",
        sentinels.sentinel_addrs().join(","),
        sentinels.service()
    );
    let behind_a_lagging_one = within(CircuitBreaker::shared(
        config("billing", 3),
        sharing(&url, "billing-lagging"),
    ))
    .await
    .expect("made");
    assert!(within(behind_a_lagging_one.sync()).await, "shares");
    tokio::time::sleep(Duration::from_millis(1_500)).await; // a recheck's interval passes
    sharing_resumes(&[shared[0].clone(), behind_a_lagging_one]).await;

    let second = sentinels.failover();
    assert_ne!(second, first);
    sentinels.reset_stats(second);
    let failed_over = Instant::now();
    sharing_resumes(&shared).await;
    println!(
        "SENTINEL FAILOVER :{first} -> :{second}: sharing resumed {:?} after the failover ended",
        failed_over.elapsed()
    );
    // The fleet's scripts ran on the new primary.
    let stats = sentinels.commandstats(second);
    let scripts: u64 = ["evalsha", "eval", "evalsha_ro", "eval_ro"]
        .iter()
        .filter_map(|c| stats.get(*c))
        .sum();
    assert!(scripts > 0, "the breakers talk to :{second}: {stats:?}");

    let killed = Instant::now();
    let dead = sentinels.kill_primary_now();
    assert_eq!(dead, second);
    // Until the sentinels act (about a second), the store finds its primary gone: degraded, on
    // local state. (A loaded machine may reach here after the promotion: then it shares.)
    for breaker in &shared {
        let shared_now = within(breaker.sync()).await;
        assert_eq!(breaker.degraded(), !shared_now);
        within(Upstream::default().call(breaker))
            .await
            .expect("a closed call goes through");
    }
    // Made now, the primary dead and not yet failed over: the sentinels answer, so it starts,
    // degraded, on local state, and joins the fleet once the replica is promoted.
    let late = within(CircuitBreaker::shared(
        config("billing", 3),
        sharing(&sentinels.url(), "billing-late"),
    ))
    .await
    .expect("made while the primary is down");
    let shared_now = within(late.sync()).await;
    assert_eq!(late.degraded(), !shared_now);
    let mut shared = shared;
    shared.push(late);
    let third = sentinels.wait_promoted(dead);
    assert_eq!(
        third, first,
        "the old primary, a replica since, is promoted again"
    );
    let promoted_after = killed.elapsed();
    sharing_resumes(&shared).await;
    println!(
        "primary :{second} killed: :{third} promoted after {promoted_after:?}, sharing resumed \
         after {:?}; errors: {:?}",
        killed.elapsed(),
        shared[0].shared_errors()
    );
    let down = Upstream::down();
    for _ in 0..3 {
        let _ = within(down.call(&shared[0])).await;
    }
    settles(&shared, BreakerState::Open).await;
}

/// Issue 41, point 25: the first trip after a Sentinel failover keeps the fleet's bound. The
/// promoted replica had none of the scripts, so the first failure batch sent to it met
/// `NOSCRIPT` and waited for its body's resend, while the next call passed uncounted (measured
/// from outside: 6 calls at threshold 3 over 3 instances, one more than the bound). The link
/// now loads every script on a primary before its first command: none is missing when the
/// trip starts, no batch is resent, and one call at a time (each caller waiting for its own
/// batch's answer, never the others' refresh) reaches the upstream at most threshold +
/// instances − 1 times.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn behind_sentinel_the_first_trip_after_a_failover_sends_no_script_twice_and_keeps_the_bound()
{
    let Some(mut sentinels) = RedisSentinels::start() else {
        return;
    };
    const THRESHOLD: u32 = 3;
    const INSTANCES: usize = 3;
    let fleet = fleet(&sentinels.url(), "billing", THRESHOLD, INSTANCES).await;
    sharing_resumes(&fleet).await;
    let promoted = sentinels.kill_primary();
    for breaker in &fleet {
        within(async {
            while !breaker.sync().await {
                tokio::time::sleep(Duration::from_millis(50)).await; // the rediscovery's pace
            }
        })
        .await;
    }
    // Only refreshes have reached the promoted node, and every script is there already.
    let hashes: Vec<String> = [
        include_str!("../../src/circuit_breaker/shared/scripts/failure.lua"),
        include_str!("../../src/circuit_breaker/shared/scripts/claim.lua"),
        include_str!("../../src/circuit_breaker/shared/scripts/release.lua"),
        include_str!("../../src/circuit_breaker/shared/scripts/reset.lua"),
        include_str!("../../src/circuit_breaker/shared/scripts/hold.lua"),
        include_str!("../../src/circuit_breaker/shared/scripts/refresh.lua"),
    ]
    .iter()
    .map(|body| redis::Script::new(body).get_hash().to_owned())
    .collect();
    let mut exists = vec!["SCRIPT", "EXISTS"];
    exists.extend(hashes.iter().map(String::as_str));
    let loaded_before_the_trip = sentinels.cli(promoted, &exists).replace('\n', " ");
    let resent_before: u64 = fleet.iter().map(|b| errors(b, "noscript")).sum();

    let upstream = Upstream::down();
    let mut per_instance = [0_u64; INSTANCES];
    let mut i = 0;
    while !states(&fleet).iter().all(|s| *s == BreakerState::Open) {
        let (at, before) = (i % INSTANCES, upstream.hits());
        let _ = within(upstream.call(&fleet[at])).await;
        assert!(within(fleet[at].sync()).await, "Redis answered the sync");
        per_instance[at] += upstream.hits() - before;
        i += 1;
        assert!(i < 100, "the fleet never opened");
    }
    let resent = fleet.iter().map(|b| errors(b, "noscript")).sum::<u64>() - resent_before;
    println!(
        "the first trip on the promoted :{promoted}: {} calls reached the down upstream \
         ({per_instance:?} per instance), {resent} scripts resent after NOSCRIPT; SCRIPT \
         EXISTS before it: {loaded_before_the_trip}",
        upstream.hits()
    );
    assert_eq!(
        loaded_before_the_trip,
        ["1"; 6].join(" "),
        "every script was on the promoted :{promoted} before the trip"
    );
    assert_eq!(resent, 0, "no batch waited for a script's resend");
    // The bound, and no tighter: an instance whose background refresh (every refresh interval)
    // learns the verdict between two calls fails fast one call earlier, so a loaded machine
    // may see fewer calls than the bound; never fewer than the threshold that trips it.
    let bound = u64::from(THRESHOLD) + INSTANCES as u64 - 1;
    assert!(
        (u64::from(THRESHOLD)..=bound).contains(&upstream.hits()),
        "between the threshold and threshold + instances − 1 ({bound}): {}",
        upstream.hits()
    );
}

/// `GET key` on the server on `port`, as a number (`None`: no such key).
fn get_number(sentinels: &RedisSentinels, port: u16, key: &str) -> Option<u64> {
    let text = sentinels.cli(port, &["GET", key]);
    (!text.is_empty()).then(|| text.parse().expect("a number"))
}

/// What a failover that loses acknowledged writes costs, measured. A relay holds the replica
/// behind its primary (the replication stream stops reaching it; its link stays up), the fleet
/// writes to the primary alone, the primary is SIGKILLed and the sentinels promote the replica,
/// which never got those writes:
///
/// - `billing` tripped and its trial leased on the old primary alone: the promoted node has
///   neither the open record nor the lease, so each instance falls back on its own window and
///   trial, and while the first instance's trial is still in flight the second sends one of
///   its own: a second trial. The first trial's late success is fenced (its lease is gone) and
///   changes nothing in Redis; the next trip's generation is above every one the old primary
///   handed out (`max(previous + 1, TIME)`: the promoted node's counter was behind), and after
///   it one trial fleet-wide again.
/// - `ledger`'s two failures (threshold 3) counted on the old primary alone: the fleet
///   re-learns them: three calls reach the down upstream before every instance fails fast,
///   where one would have, had nothing been lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn behind_sentinel_a_failover_that_loses_writes_costs_a_second_trial_and_a_relearnt_count() {
    let Some((mut sentinels, relay)) = RedisSentinels::start_with_held_replica() else {
        return;
    };
    let url = sentinels.url();
    // A call timeout longer than the failover: the first trial is still in flight after it.
    let billing = fleet_of(&url, "billing", 2, || {
        config("billing", 3).call_timeout(HANG_GUARD)
    });
    let billing = Arc::new(billing.await);
    let ledger = fleet(&url, "ledger", 3, 2).await;
    sharing_resumes(&billing).await;
    sharing_resumes(&ledger).await;
    let old = sentinels.primary_port();
    let replica = sentinels
        .data_ports()
        .into_iter()
        .find(|&port| port != old)
        .expect("the replica");
    let key = |name: &str, key: &str| format!("green-tea:breaker:{{{name}}}:{key}");
    sentinels.write_replicated(old, &["SET", "before-the-hold", "1"]);
    relay.hold();

    // Acknowledged by the old primary alone: ledger's two failures, billing's trip and then the
    // lease of its trial.
    let down = Upstream::down();
    for breaker in &ledger {
        let _ = within(down.call(breaker)).await;
    }
    sync_all(&ledger).await;
    assert_eq!(
        get_number(&sentinels, old, &key("ledger", "fails")),
        Some(2)
    );
    assert_eq!(discover_a_down_upstream(&billing).await, 3);
    let tripped = get_number(&sentinels, old, &key("billing", "gen")).expect("a generation");
    tokio::time::sleep(WINDOW + Duration::from_millis(20)).await;
    sync_all(&billing).await;
    let trial = Upstream::default();
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let first_trial = tokio::spawn({
        let (billing, trial, gate) = (Arc::clone(&billing), trial.clone(), Arc::clone(&gate));
        async move {
            billing[0]
                .call(|| async {
                    trial.hits.fetch_add(1, SeqCst);
                    let _ = gate.acquire().await;
                    Ok::<_, &str>(())
                })
                .await
        }
    });
    within(async {
        while trial.hits() == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await; // the trial's task is polled
        }
    })
    .await;
    let refused = Upstream::down();
    assert!(within(refused.call(&billing[1])).await.is_err());
    assert_eq!(
        refused.hits(),
        0,
        "the lease is held: one trial fleet-wide so far"
    );
    // None of it reached the replica.
    assert_eq!(
        get_number(&sentinels, replica, &key("ledger", "fails")),
        None
    );
    assert_eq!(
        get_number(&sentinels, replica, &key("billing", "gen")),
        None
    );
    assert_eq!(
        sentinels.cli(replica, &["EXISTS", &key("billing", "open")]),
        "0"
    );

    let killed = Instant::now();
    let promoted = sentinels.kill_primary();
    assert_eq!(promoted, replica);
    let promoted_after = killed.elapsed();
    for breaker in billing.iter().chain(&ledger) {
        within(async {
            while !breaker.sync().await {
                tokio::time::sleep(Duration::from_millis(50)).await; // the rediscovery's pace
            }
        })
        .await;
    }
    assert_eq!(
        sentinels.cli(promoted, &["EXISTS", &key("billing", "open")]),
        "0",
        "the open record was lost"
    );

    // A second trial: the second instance, its own window over, trials by itself while the
    // first trial is still in flight.
    let second = Upstream::down();
    assert!(within(second.call(&billing[1])).await.is_err());
    assert_eq!(second.hits(), 1, "a second trial reached the upstream");
    assert!(
        !first_trial.is_finished(),
        "the first trial is still in flight"
    );
    // The first trial's late success closes its own instance, and nothing in Redis.
    gate.add_permits(1);
    within(first_trial)
        .await
        .unwrap()
        .expect("the trial succeeded");
    sync_all(&billing).await;
    assert_eq!(billing[0].state(), BreakerState::Closed);
    assert_eq!(
        sentinels.cli(promoted, &["EXISTS", &key("billing", "open")]),
        "0",
        "the fenced release opened or closed nothing"
    );
    // The next trip: a generation above the lost one, and then one trial fleet-wide again.
    let retrip = discover_a_down_upstream(&billing).await;
    let again = get_number(&sentinels, promoted, &key("billing", "gen")).expect("a generation");
    assert!(
        again > tripped,
        "generation {again} after the failover, {tripped} before it"
    );
    assert_eq!(trial_after_the_window(&billing).await, 1);

    // The lost count is re-learnt.
    let relearnt = discover_a_down_upstream(&ledger).await;
    assert_eq!(relearnt, 3, "the two lost failures and the one that trips");
    println!(
        "a failover losing writes: promoted after {promoted_after:?}; billing: 2 trials in \
         flight at once (1 per instance), the first one's success fenced, the re-trip after \
         {retrip} calls at generation {again} > {tripped}; ledger: 2 failures lost, {relearnt} \
         calls reached the down upstream before the fleet opened (1 without the loss)"
    );
}

/// A sentinel that lags a failover: asked for the primary (`SENTINEL GET-MASTER-ADDR-BY-NAME`),
/// it names the server on `named`; anything else (the client's handshake) it answers `+OK`.
/// Its port; it serves until the test ends.
async fn lagging_sentinel(named: u16) -> u16 {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let port = listener.local_addr().expect("its address").port();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut read = BufReader::new(read);
                let mut line = String::new();
                loop {
                    // `*<n>`, then `$<len>` and the argument, n times.
                    line.clear();
                    if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let Some(count) = line.trim().strip_prefix('*') else {
                        return;
                    };
                    let mut args = Vec::new();
                    for _ in 0..count.parse::<usize>().unwrap_or(0) {
                        for _ in 0..2 {
                            line.clear();
                            if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                                return;
                            }
                        }
                        args.push(line.trim().to_uppercase());
                    }
                    let reply = if args.first().is_some_and(|a| a == "SENTINEL") {
                        let port = named.to_string();
                        format!("*2\r\n$9\r\n127.0.0.1\r\n${}\r\n{port}\r\n", port.len())
                    } else {
                        "+OK\r\n".to_owned()
                    };
                    if write.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}
