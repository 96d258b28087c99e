//! Issue 14's test 8, end to end with processes: three `orders` processes sharing billing's
//! breaker through one throwaway `redis-server`, in front of one `billing_upstream`; and one
//! `orders` sharing it through a throwaway Redis Cluster (issue 28). The
//! example binaries are the ones cargo built beside this test (as tests/examples/smoke.rs runs
//! them), never a nested `cargo run`.
#![cfg(unix)]

#[path = "../../crates/recipes/tests/support/redis.rs"]
mod redis_server;
#[path = "../../crates/recipes/tests/support/redis_topology.rs"]
mod redis_topology;
use crate::support;

use std::time::Duration;

use http::Method;
use redis_server::RedisServer;
use support::examples::Example;
use support::http::{Client, Reply, http1_client, send, within};

const THRESHOLD: u64 = 3;
const WINDOW: Duration = Duration::from_millis(800);

/// An example started as the test needs it: once its whole banner is out (both examples end
/// it with "Ctrl-C to stop": the address and `orders`' explain come before).
fn start(name: &str, args: &[&str], env: &[(&str, &str)]) -> Example {
    Example::start_until(name, args, env, "Ctrl-C to stop")
}

async fn order(client: &Client, orders: &Example) -> Reply {
    let body = serde_json::json!({ "userId": "u1", "amount": 5 });
    within(
        "an order",
        send(
            client,
            Method::POST,
            &format!("{}/orders", orders.base()),
            Some(&body),
        ),
    )
    .await
    .expect("a response")
}

/// Whether the fleet's state in Redis accounts for `charges` failures: counted, or open. The
/// processes publish in the background; the test waits for this (polling the Redis it started)
/// before its next request, as the in-process tests await `sync()`.
async fn fleet_heard(admin: &mut redis::Connection, charges: u64) {
    let base = "green-tea:breaker:{billing-e2e}";
    within("the failures reach Redis", async {
        loop {
            let open: bool = redis::cmd("EXISTS")
                .arg(format!("{base}:open"))
                .query(admin)
                .unwrap();
            let counted: Option<u64> = redis::cmd("GET")
                .arg(format!("{base}:fails"))
                .query(admin)
                .unwrap();
            if open || counted.unwrap_or(0) >= charges {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await; // the publisher's pace
        }
    })
    .await;
}

/// Whether the fleet's open record exists.
fn fleet_open(admin: &mut redis::Connection) -> bool {
    redis::cmd("EXISTS")
        .arg("green-tea:breaker:{billing-e2e}:open")
        .query(admin)
        .unwrap()
}

/// Waits until `orders` logged that its breaker opened.
async fn opened(orders: &Example) {
    within("the instance opens its breaker", async {
        while !orders.printed("circuit opened") {
            tokio::time::sleep(Duration::from_millis(1)).await; // the log's pace
        }
    })
    .await;
}

/// Whether a reply means billing was charged (called): a 201, or a 503 without `Retry-After`
/// (billing failed); a 503 with `Retry-After` failed fast without calling it.
fn charged(reply: &Reply) -> bool {
    !reply.headers.contains_key("retry-after")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_orders_processes_share_billings_breaker() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let upstream = start("billing_upstream", &["--mode", "down"], &[]);
    let (url, billing_url) = (server.url(), upstream.base());
    let env = [
        ("BILLING_URL", billing_url.as_str()),
        ("BREAKER_REDIS_URL", url.as_str()),
        ("BREAKER_NAME", "billing-e2e"),
        ("BILLING_BREAKER_THRESHOLD", "3"),
        ("BILLING_BREAKER_RESET", "800ms"),
        ("BREAKER_REFRESH", "50ms"),
    ];
    let fleet: Vec<Example> = (0..3).map(|_| start("orders", &[], &env)).collect();
    for orders in &fleet {
        assert!(orders.printed("billing's circuit breaker is shared through redis+unix://"));
        // `explain` shows where the sharing came from; the URL itself only as the banner's
        // location (a Redis URL may hold a password).
        assert!(orders.printed("redis_url = *** (env BREAKER_REDIS_URL)"));
        assert!(orders.printed("name = billing-e2e (env BREAKER_NAME)"));
        assert!(orders.printed("{billing-e2e}"));
    }
    let client = http1_client();
    let mut admin = redis::Client::open(server.url())
        .and_then(|client| client.get_connection())
        .expect("a connection to the test's redis-server");

    // Down: one request at a time, round robin, until every instance fails fast.
    let (mut charges, mut failing_fast, mut i) = (0, [false; 3], 0);
    while !failing_fast.iter().all(|f| *f) {
        let reply = order(&client, &fleet[i % 3]).await;
        assert_eq!(reply.status, 503);
        if charged(&reply) {
            charges += 1;
            fleet_heard(&mut admin, charges).await;
            // Once the fleet is open, the instance that just charged opens itself when its
            // failure's reply (or its next refresh) reaches it, in the background: wait for
            // that, so that its next turn is decided by what it has been told rather than by
            // how loaded the machine is.
            if fleet_open(&mut admin) {
                opened(&fleet[i % 3]).await;
            }
        } else {
            failing_fast[i % 3] = true;
        }
        i += 1;
        assert!(i < 1000, "the fleet never failed fast");
    }
    println!("billing charged {charges} time(s) before all three instances failed fast");
    assert!(charges <= THRESHOLD + 2, "{charges} charges");

    // Up again; once the window has passed (Redis's clock), exactly one trial, then 201s.
    let mode = serde_json::json!({ "mode": "up" });
    let switched = send(
        &client,
        Method::PUT,
        &format!("{}/mode", upstream.base()),
        Some(&mode),
    )
    .await
    .unwrap();
    assert_eq!(switched.status, 200);
    tokio::time::sleep(WINDOW).await;
    let (mut trials, mut served, mut i) = (0, [false; 3], 0);
    while !served.iter().all(|s| *s) {
        let reply = order(&client, &fleet[i % 3]).await;
        match reply.status.as_u16() {
            201 => {
                if !served.iter().any(|s| *s) {
                    trials += 1; // the first charge after the window is the trial
                }
                served[i % 3] = true;
            }
            503 => {
                assert!(!charged(&reply), "only the trial reaches billing");
                // An instance that has not refreshed since: its next refresh is 50 ms away.
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            other => panic!("unexpected {other}"),
        }
        i += 1;
        assert!(i < 3000, "the fleet never closed");
    }
    assert_eq!(trials, 1);
}

/// Issue 28: `orders` with `BREAKER_REDIS_URL` naming a Redis Cluster (`redis+cluster://`, its
/// seeds) says so in its banner, `explain` shows the setting's source, and its breaker's keys
/// are on the primary that owns `{billing-cluster}`'s slot once an order failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_shares_billings_breaker_through_a_redis_cluster() {
    let Some(cluster) = redis_topology::RedisCluster::start(3, 0) else {
        return;
    };
    let upstream = start("billing_upstream", &["--mode", "down"], &[]);
    let (url, billing_url) = (cluster.url(), upstream.base());
    let env = [
        ("BILLING_URL", billing_url.as_str()),
        ("BREAKER_REDIS_URL", url.as_str()),
        ("BREAKER_NAME", "billing-cluster"),
        ("BREAKER_REFRESH", "50ms"),
    ];
    let orders = start("orders", &[], &env);
    let seeds = cluster.seeds().join(",");
    assert!(orders.printed(&format!(
        "billing's circuit breaker is shared through Redis Cluster {seeds} as green-tea:breaker:{{billing-cluster}}"
    )));
    assert!(orders.printed("redis_url = *** (env BREAKER_REDIS_URL)"));
    let client = http1_client();
    let reply = order(&client, &orders).await;
    assert_eq!(reply.status, 503, "billing is down");
    let owner = cluster.primary_of_slot(cluster.slot_of("{billing-cluster}"));
    within("the failure reaches the cluster", async {
        while cluster.cli(owner, &["GET", "green-tea:breaker:{billing-cluster}:fails"]) != "1" {
            tokio::time::sleep(Duration::from_millis(5)).await; // the publisher's pace
        }
    })
    .await;
}
