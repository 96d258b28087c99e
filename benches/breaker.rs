//! The circuit breaker's overhead per call: closed and uncontended, against a bare call and
//! against the `failsafe` crate's breaker; then with two threads contending; then a closed call
//! with a shared store attached (a throwaway `redis-server`, skipped where it is missing), and
//! one on a throwaway Redis Cluster of three primaries, against the same breaker without one.
//!
//! `cargo bench --bench breaker`; figures and method in docs/benchmarks.md.

#![allow(missing_docs)] // criterion_group! generates undocumented public fns

#[path = "../crates/recipes/tests/support/redis.rs"]
mod redis_server;
#[path = "../crates/recipes/tests/support/redis_topology.rs"]
mod redis_topology;

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use failsafe::futures::CircuitBreaker as _;
use green_tea_recipes::circuit_breaker::shared::SharedConfig;
use green_tea_recipes::circuit_breaker::{CircuitBreaker, Config};

/// Polls a future that is ready at once (every operation here is).
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("the benchmarked operations never wait"),
    }
}

async fn operation(n: u64) -> Result<u64, ()> {
    Ok(black_box(n))
}

fn uncontended(c: &mut Criterion) {
    let ours = CircuitBreaker::new(Config::new(3, Duration::from_secs(30)));
    let theirs = failsafe::Config::new().build();
    let mut group = c.benchmark_group("breaker, closed, uncontended");
    group.bench_function("bare call", |b| b.iter(|| ready(operation(1)).unwrap()));
    group.bench_function("green-tea CircuitBreaker", |b| {
        b.iter(|| ready(ours.call(|| operation(1))).unwrap())
    });
    group.bench_function("failsafe", |b| {
        b.iter(|| ready(theirs.call(operation(1))).unwrap())
    });
    group.finish();
}

fn contended(c: &mut Criterion) {
    let ours = CircuitBreaker::new(Config::new(3, Duration::from_secs(30)));
    let theirs = failsafe::Config::new().build();
    let mut group = c.benchmark_group("breaker, closed, 2 threads");
    group.bench_function("green-tea CircuitBreaker", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| (0..iters).for_each(|i| drop(ready(ours.call(|| operation(i))))));
                }
            });
            start.elapsed()
        })
    });
    group.bench_function("failsafe", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| (0..iters).for_each(|i| drop(ready(theirs.call(operation(i))))));
                }
            });
            start.elapsed()
        })
    });
    group.finish();
}

/// A closed call with a shared store attached, against the same breaker (with the call timeout a
/// shared breaker requires) without one. Both poll inside a runtime, as the timeout needs.
fn shared_store(c: &mut Criterion) {
    let Some(server) = redis_server::RedisServer::start() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let config = || Config::new(3, Duration::from_secs(30)).call_timeout(Duration::from_secs(2));
    let local = CircuitBreaker::new(config());
    let shared = runtime
        .block_on(CircuitBreaker::shared(
            config().name("bench"),
            SharedConfig::new(server.url()),
        ))
        .unwrap();
    assert!(runtime.block_on(shared.sync()), "redis-server answers");
    // And on a Redis Cluster of three primaries (the bench's own, on loopback).
    let cluster = redis_topology::RedisCluster::start(3, 0).expect("a Redis Cluster");
    let clustered = runtime
        .block_on(CircuitBreaker::shared(
            config().name("bench"),
            SharedConfig::new(cluster.url()),
        ))
        .unwrap();
    assert!(runtime.block_on(clustered.sync()), "the cluster answers");
    let _context = runtime.enter();
    let mut group = c.benchmark_group("breaker, closed, with a call timeout");
    group.bench_function("local", |b| {
        b.iter(|| ready(local.call(|| operation(1))).unwrap())
    });
    group.bench_function("shared store attached", |b| {
        b.iter(|| ready(shared.call(|| operation(1))).unwrap())
    });
    group.bench_function("cluster store attached", |b| {
        b.iter(|| ready(clustered.call(|| operation(1))).unwrap())
    });
    group.finish();
    drop(cluster);
}

criterion_group!(benches, uncontended, contended, shared_store);
criterion_main!(benches);
