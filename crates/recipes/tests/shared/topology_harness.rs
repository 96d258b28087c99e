//! The Redis Cluster and Sentinel harness (support/redis_topology.rs) on its own, before the
//! breaker's tests lean on it: a cluster fails over without losing a synced key and moves a
//! slot with its keys; sentinels fail over on request and on a kill, back and forth; a replica
//! held behind the relay is promoted without a write its primary acknowledged. Driven by
//! `redis-cli`, as the harness is; no Redis client. Each prints how long its steps took (run
//! with `--nocapture` to read them); none asserts on time.
#![cfg(feature = "redis")]

use crate::redis_topology;

use std::time::Instant;

use redis_topology::{RedisCluster, RedisSentinels};

#[test]
fn a_cluster_fails_over_and_moves_a_slot_with_its_keys() {
    let started = Instant::now();
    let Some(mut cluster) = RedisCluster::start(3, 1) else {
        return;
    };
    eprintln!("RedisCluster::start(3, 1): {:?}", started.elapsed());

    let seeds = cluster.seeds();
    assert_eq!(seeds.len(), 3);
    assert_eq!(
        cluster.url(),
        format!("redis+cluster://{}", seeds.join(","))
    );
    let primaries = cluster.primaries();
    assert_eq!(primaries.len(), 3);
    for &primary in &primaries {
        assert_eq!(
            cluster.replicas_of(primary).len(),
            1,
            "{primary}'s replicas"
        );
    }

    let slot = cluster.slot_of("{billing}");
    let every_node = primaries
        .iter()
        .flat_map(|&p| std::iter::once(p).chain(cluster.replicas_of(p)));
    for port in every_node {
        let slot_there = cluster.cli(port, &["CLUSTER", "KEYSLOT", "{billing}"]);
        assert_eq!(slot_there, slot.to_string(), "CLUSTER KEYSLOT on {port}");
    }
    assert_eq!(
        cluster.slot_of("x{billing}"),
        slot,
        "the tag decides the slot"
    );

    // A key written, and replicated, before its primary dies; read through the cluster.
    let old = cluster.primary_of_slot(slot);
    cluster.write_replicated(old, &["SET", "x{billing}", "before"]);
    let elsewhere = primaries
        .iter()
        .copied()
        .find(|&p| p != old)
        .expect("another");
    let read = cluster.cli(elsewhere, &["-c", "GET", "x{billing}"]);
    assert_eq!(read, "before", "redis-cli -c follows MOVED");
    let killed = Instant::now();
    cluster.kill(old);
    let new = cluster.wait_for_failover(slot, old);
    eprintln!(
        "cluster failover, kill to wait_for_failover: {:?}",
        killed.elapsed()
    );
    assert_ne!(new, old);
    assert_eq!(cluster.primary_of_slot(slot), new);
    assert!(!cluster.primaries().contains(&old));
    assert_eq!(cluster.cli(new, &["GET", "x{billing}"]), "before");
    assert_eq!(
        cluster.cli(new, &["SET", "x{billing}", "after"]),
        "OK",
        "a write"
    );

    // The slot moves to another primary, step by step, its key with it.
    let target = cluster
        .primaries()
        .into_iter()
        .find(|&p| p != new)
        .expect("another primary");
    let moved = Instant::now();
    cluster.begin_migration(slot, new, target);
    assert_eq!(cluster.migrate_keys(slot, new, target), 1);
    assert_eq!(cluster.migrate_keys(slot, new, target), 0, "nothing left");
    cluster.finish_migration(slot, target);
    eprintln!("moving a slot with one key: {:?}", moved.elapsed());
    assert_eq!(cluster.primary_of_slot(slot), target);
    assert_eq!(cluster.cli(target, &["GET", "x{billing}"]), "after");
    let left = cluster.cli(new, &["CLUSTER", "COUNTKEYSINSLOT", &slot.to_string()]);
    assert_eq!(left, "0");
    // And back, in one call.
    cluster.reshard(slot, new);
    assert_eq!(cluster.primary_of_slot(slot), new);
    assert_eq!(cluster.cli(new, &["GET", "x{billing}"]), "after");

    let gets = |stats: &std::collections::BTreeMap<String, u64>| stats.get("get").copied();
    assert!(gets(&cluster.commandstats(new)).is_some_and(|calls| calls > 0));
    cluster.reset_stats(new);
    assert_eq!(gets(&cluster.commandstats(new)).unwrap_or(0), 0);
}

#[test]
fn sentinels_fail_over_on_request_and_on_a_kill() {
    let started = Instant::now();
    let Some(mut sentinels) = RedisSentinels::start() else {
        return;
    };
    eprintln!("RedisSentinels::start(): {:?}", started.elapsed());

    assert_eq!(sentinels.service(), "gt-primary");
    let addrs = sentinels.sentinel_addrs();
    assert_eq!(addrs.len(), 3);
    assert_eq!(
        sentinels.url(),
        format!("redis+sentinel://{}/gt-primary", addrs.join(","))
    );
    let [original, replica] = sentinels.data_ports()[..] else {
        panic!("two data servers");
    };
    assert_eq!(sentinels.primary_port(), original);

    sentinels.write_replicated(original, &["SET", "k", "before"]);
    let asked = Instant::now();
    let promoted = sentinels.failover();
    eprintln!("sentinel failover(): {:?}", asked.elapsed());
    assert_eq!(promoted, replica);
    assert_eq!(sentinels.primary_port(), promoted);
    assert_eq!(sentinels.cli(promoted, &["GET", "k"]), "before");
    // It takes writes, and the old primary, its replica now, gets them: a write that survives
    // the kill below.
    sentinels.write_replicated(promoted, &["SET", "k", "after"]);

    // With two data servers, killing the primary promotes the original one again.
    let killed = Instant::now();
    let again = sentinels.kill_primary();
    eprintln!("sentinel kill_primary(): {:?}", killed.elapsed());
    assert_eq!(again, original);
    assert_eq!(sentinels.cli(again, &["GET", "k"]), "after");
    assert_eq!(sentinels.cli(again, &["SET", "k", "last"]), "OK", "a write");

    let sets = sentinels.commandstats(again).get("set").copied();
    assert!(sets.is_some_and(|calls| calls > 0));
    sentinels.reset_stats(again);
    assert!(!sentinels.commandstats(again).contains_key("set"));
}

#[test]
fn a_held_replica_is_promoted_without_the_write_its_primary_acknowledged() {
    let started = Instant::now();
    let Some((mut sentinels, hold)) = RedisSentinels::start_with_held_replica() else {
        return;
    };
    eprintln!(
        "RedisSentinels::start_with_held_replica(): {:?}",
        started.elapsed()
    );
    let [original, replica] = sentinels.data_ports()[..] else {
        panic!("two data servers");
    };
    assert_eq!(sentinels.primary_port(), original);
    let through = format!("master_port:{}", hold.port());
    let info = sentinels.cli(replica, &["INFO", "replication"]);
    assert!(
        info.lines().any(|line| line.trim_end() == through),
        "the replica replicates through the relay on {}:\n{info}",
        hold.port()
    );

    // Before the hold, a write reaches the replica.
    sentinels.write_replicated(original, &["SET", "before", "1"]);
    assert_eq!(sentinels.cli(replica, &["GET", "before"]), "1");

    // Held: the primary acknowledges a write that the replica never gets. Its bytes are in the
    // primary's stream past `held_at`, the relay has read and dropped them, and the replica's
    // offset (and what it acknowledged to the primary) stays at most `held_at`.
    let held = Instant::now();
    assert!(!hold.is_held());
    hold.hold();
    assert!(hold.is_held());
    let held_at = sentinels.repl_offset(original);
    assert_eq!(
        sentinels.cli(original, &["SET", "after", "1"]),
        "OK",
        "the primary acknowledges the write"
    );
    let written = sentinels.repl_offset(original);
    assert!(written > held_at, "the write is in the primary's stream");
    sentinels.wait_withheld(written);
    let lacks_the_write = |when: &str| {
        let applied = sentinels.repl_offset(replica);
        assert!(
            applied <= held_at,
            "{when}: the replica applied up to {applied}, past the hold's {held_at}"
        );
        let acked = sentinels.acked_offset(original, replica);
        assert!(
            acked.is_some_and(|acked| acked <= held_at),
            "{when}: the primary lists the replica online, acknowledged up to at most \
             {held_at}: {acked:?}"
        );
        assert_eq!(sentinels.cli(replica, &["EXISTS", "after"]), "0", "{when}");
        assert_eq!(sentinels.cli(replica, &["GET", "before"]), "1", "{when}");
    };
    lacks_the_write("held");
    // The sentinels try to point the replica at the primary itself, which would stream the
    // write to it after all, and are refused; the replica still lacks it.
    sentinels.wait_repoint_refused();
    eprintln!(
        "hold to a sentinel's refused REPLICAOF: {:?}",
        held.elapsed()
    );
    lacks_the_write("after a sentinel's REPLICAOF refused");

    // The primary dies; the sentinels promote the replica, and the acknowledged write is lost.
    let killed = Instant::now();
    let promoted = sentinels.kill_primary();
    eprintln!(
        "kill_primary() of a held replica's primary: {:?}",
        killed.elapsed()
    );
    assert_eq!(promoted, replica);
    let role = sentinels.cli(promoted, &["ROLE"]);
    assert_eq!(role.lines().next(), Some("master"), "ROLE: {role}");
    assert_eq!(sentinels.cli(promoted, &["GET", "before"]), "1");
    assert_eq!(sentinels.cli(promoted, &["EXISTS", "after"]), "0", "lost");
    assert_eq!(sentinels.cli(promoted, &["GET", "after"]), "", "nil");
    assert_eq!(
        sentinels.cli(promoted, &["SET", "after", "2"]),
        "OK",
        "the promoted replica takes writes"
    );
}
