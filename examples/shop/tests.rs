//! The shop's own tests, in process (tests/examples/shop.rs runs them, and drives the example
//! itself over HTTP). Each test's shop has a database of its own: a SQLite file in a fresh
//! directory, deleted with the test's `Scratch`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use green_tea::error::Problem;
use green_tea::settings::Sources;
use green_tea::test::TestClient;
use green_tea_recipes::circuit_breaker::{CircuitBreaker, Config, ManualClock};
use serde_json::{Value, json};
use shop_notifications::{Contact, Notifier};

use super::payments::{Charging, PaymentError, Payments};
use super::*;

/// A database of one test's own: a SQLite file in a directory that is removed on drop.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gt-shop-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    /// The settings' sources: this database, nothing else from the environment.
    fn sources(&self) -> Sources {
        let url = format!("sqlite://{}/shop.db", self.0.display());
        Sources::from_env_map([("DATABASE_URL", url)])
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn order(user: &str, product: &str, quantity: u64) -> Value {
    json!({ "userId": user, "productId": product, "quantity": quantity })
}

/// Every notifier is told, in order; each skips a user it cannot reach. Each order is
/// charged through its region's gateway.
#[tokio::test]
async fn an_order_is_charged_in_its_region_and_every_notifier_told() {
    let db = Scratch::new();
    let app = shop().settings(db.sources()).build().unwrap();
    let client = TestClient::new(app.clone());
    let created = client
        .post("/orders")
        .json(&order("u1", "sencha", 2))
        .send()
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json();
    assert_eq!(created["cents"], 2_400);
    assert_eq!(created["region"], "eu");
    assert_eq!(created["charge"], "https://pay-eu.example/charges/ch_1_u1");
    assert_eq!(created["shipment"], "https://warehouse.example/shipments/1");
    assert_eq!(
        created["notified"],
        json!([
            "email to ada@example.com: your order of 2 sencha is on its way",
            "sms to +44 20 7946 0001: your order of 2 sencha is on its way"
        ])
    );
    let grace: Value = client
        .post("/orders")
        .json(&order("u2", "matcha", 1))
        .send()
        .await
        .json();
    assert_eq!(grace["charge"], "https://pay-us.example/charges/ch_1_u2");
    assert_eq!(grace["notified"].as_array().unwrap().len(), 1, "no phone");
    let shipped_to_eu: Value = client
        .post("/orders")
        .json(&json!({ "userId": "u2", "productId": "sencha", "quantity": 1, "region": "eu" }))
        .send()
        .await
        .json();
    assert_eq!(
        shipped_to_eu["charge"],
        "https://pay-eu.example/charges/ch_2_u2"
    );
    let sent: Value = client.get("/notifications").send().await.json();
    assert_eq!(sent.as_array().unwrap().len(), 4, "{sent}");
    assert_eq!(
        sent[1],
        "POST https://notify.example/sms to +44 20 7946 0001: your order of 2 sencha is on its way"
    );
    app.close().await.unwrap();
}

/// Each gateway fails every third charge once: the retrying decorator hides it, the counting
/// decorator, outside it, counts one charge per order, and the breaker stays closed. The
/// other region's counts are its own.
#[tokio::test]
async fn the_decorators_retry_and_count_per_region_without_the_gateway_knowing() {
    let db = Scratch::new();
    let app = shop().settings(db.sources()).build().unwrap();
    let client = TestClient::new(app.clone());
    for _ in 0..3 {
        let created = client
            .post("/orders")
            .json(&order("u1", "sencha", 1))
            .send()
            .await;
        assert_eq!(created.status(), 201);
    }
    let third: Value = client.get("/orders/3").send().await.json();
    assert_eq!(
        third["charge"], "https://pay-eu.example/charges/ch_4_u1",
        "the third charge failed once and was tried again"
    );
    let eu: Value = client.get("/payments/eu/stats").send().await.json();
    assert_eq!(eu, json!({ "asked": 3, "charged": 3, "breaker": "closed" }));
    let us: Value = client.get("/payments/us/stats").send().await.json();
    assert_eq!(us, json!({ "asked": 0, "charged": 0, "breaker": "closed" }));
    let declined = client
        .post("/orders")
        .json(&order("u1", "matcha", 10))
        .send()
        .await;
    assert_eq!(declined.status(), 402);
    app.close().await.unwrap();
}

/// A gateway that is down, counting its calls.
#[derive(Default)]
struct Down(AtomicU64);

impl Payments for Down {
    fn charge<'a>(&'a self, _user: &'a str, _cents: u64) -> Charging<'a> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Box::pin(async { Err(PaymentError::Transient) })
    }
}

/// The EU gateway down: its breaker opens after three failures (one order's tries) and then
/// refuses without calling it; the US payments, with a breaker of their own, still charge.
/// The EU breaker is replaced by one on a clock the test holds, so no time passes for it.
#[tokio::test]
async fn each_region_has_its_own_breaker() {
    let down = Arc::new(Down::default());
    let config = Config::new(3, Duration::from_secs(30)).clock(ManualClock::new());
    let db = Scratch::new();
    let app = shop()
        .settings(db.sources())
        .override_value(
            "payments_eu::gateway",
            Arc::clone(&down) as Arc<dyn Payments>,
        )
        .override_value("payments_eu::breaker", CircuitBreaker::new(config))
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let failed = client
        .post("/orders")
        .json(&order("u1", "sencha", 1))
        .send()
        .await;
    assert_eq!(failed.status(), 503);
    assert_eq!(down.0.load(Ordering::Relaxed), 3, "tried three times");
    let eu: Value = client.get("/payments/eu/stats").send().await.json();
    assert_eq!(eu["breaker"], "open");
    let refused = client
        .post("/orders")
        .json(&order("u1", "sencha", 1))
        .send()
        .await;
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.header("retry-after"), Some("30"));
    assert_eq!(down.0.load(Ordering::Relaxed), 3, "not called while open");
    let us = client
        .post("/orders")
        .json(&order("u2", "sencha", 1))
        .send()
        .await;
    assert_eq!(us.status(), 201);
    let us: Value = client.get("/payments/us/stats").send().await.json();
    assert_eq!(us["breaker"], "closed");
    app.close().await.unwrap();
}

/// A test's fake payments, in place of one region's breaker and gateway: the decorators still
/// wrap it, so it is counted.
#[tokio::test]
async fn a_fake_payments_goes_through_the_decorators() {
    struct Approves;
    impl Payments for Approves {
        fn charge<'a>(&'a self, user: &'a str, _cents: u64) -> Charging<'a> {
            Box::pin(async move { Ok(format!("fake_{user}")) })
        }
    }
    let db = Scratch::new();
    let app = shop()
        .settings(db.sources())
        .override_value(
            "payments_eu::payments",
            Arc::new(Approves) as Arc<dyn Payments>,
        )
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let created: Value = client
        .post("/orders")
        .json(&order("u1", "sencha", 1))
        .send()
        .await
        .json();
    assert_eq!(created["charge"], "fake_u1");
    let stats: Value = client.get("/payments/eu/stats").send().await.json();
    assert_eq!(
        stats["asked"], 1,
        "counted: the decorators wrap the override"
    );
    app.close().await.unwrap();
}

/// Without a cache the products are looked up each time; with one, the second lookup hits.
/// The switch `cacheOn` decides (`SHOP_CACHE`); a test decides it directly.
#[tokio::test]
async fn the_price_cache_is_optional() {
    for (cache, hits) in [("!cacheOn", Value::Null), ("cacheOn", json!(1))] {
        let db = Scratch::new();
        let app = shop()
            .settings(db.sources())
            .override_switch(cache)
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        client.get("/products/sencha").send().await;
        let second: Value = client.get("/products/sencha").send().await.json();
        assert_eq!(second["cents"], 1_200);
        assert_eq!(second["cacheHits"], hits, "cache: {cache}");
        app.close().await.unwrap();
    }
}

/// A test replaces every notifier at once: an override of the list is the whole list.
#[tokio::test]
async fn a_test_replaces_the_notifiers() {
    struct Silent;
    impl Notifier for Silent {
        fn notify(&self, to: &Contact<'_>, _text: &str) -> Option<String> {
            Some(format!("silent to {}", to.email))
        }
    }
    let db = Scratch::new();
    let app = shop()
        .settings(db.sources())
        .override_value("notifiers[]", Arc::new(Silent) as Arc<dyn Notifier>)
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let created: Value = client
        .post("/orders")
        .json(&order("u1", "sencha", 1))
        .send()
        .await
        .json();
    assert_eq!(created["notified"], json!(["silent to ada@example.com"]));
    app.close().await.unwrap();
}

/// A module's private key is its own: the app cannot need `users::http` (GT0014), though
/// each area has an `http`.
#[test]
fn the_areas_clients_are_private() {
    let peek = Route::get("/peek", |_: RequestContext| async { "" })
        .needs::<super::client::HttpClient>("users::http");
    let db = Scratch::new();
    let err = shop()
        .settings(db.sources())
        .route(peek)
        .build()
        .unwrap_err();
    let codes: Vec<&str> = err.problems().iter().map(Problem::code).collect();
    assert_eq!(codes, ["GT0014"], "{err}");
}

/// `explain` shows each shape: the modules' qualified keys, the list with its contributors,
/// the optional cache off (and why), and the payment client's chain of decorators, per region.
#[tokio::test]
async fn explain_shows_the_modules_the_list_the_optional_cache_and_the_decorators() {
    let db = Scratch::new();
    let app = shop().settings(db.sources()).build().unwrap();
    let text = app.explain("/orders").unwrap().to_string();
    for key in [
        "users::http",
        "orders::http",
        "notifications::http",
        "payments_eu::gateway",
        "payments_us::gateway",
    ] {
        assert!(text.contains(key), "{key}: {text}");
    }
    // Off, and why: the switch `cacheOn` is false (`SHOP_CACHE` unset).
    assert!(
        text.contains("priceCache? (off: on when `cacheOn` = true)"),
        "{text}"
    );
    assert!(text.contains("collection `notifiers[]`"), "{text}");
    assert!(
        text.contains("decorator `retrying`") && text.contains("decorator `counted`"),
        "{text}"
    );
    app.close().await.unwrap();
}

/// Started, the shop is ready (its database answers); an order is written with its
/// `order.created` event in the outbox, in the request's transaction: committed before the
/// 201, read back by `GET /orders/{id}`, the event not yet delivered (the relay is left out).
/// An unknown order is 404.
#[tokio::test]
async fn an_order_and_its_outbox_event_are_written_together() {
    use green_tea_recipes::database::{Database, sqlx};
    let db = Scratch::new();
    let app = shop()
        .settings(db.sources())
        .without_worker("orders::outbox_relay")
        .build()
        .unwrap();
    app.start().await.unwrap();
    let client = TestClient::new(app.clone());
    let ready = client.get("/readyz").send().await;
    assert_eq!(ready.status(), 200, "the database answers its SELECT 1");
    let created = client
        .post("/orders")
        .json(&order("u1", "sencha", 2))
        .send()
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json();
    let shown = client.get("/orders/1").send().await;
    assert_eq!(shown.status(), 200);
    assert_eq!(shown.json::<Value>(), created);
    assert_eq!(client.get("/orders/2").send().await.status(), 404);
    let database = app.get::<Database>("database").await.unwrap();
    let events: Vec<(String, String, Option<i64>)> =
        sqlx::query_as("SELECT topic, payload, delivered_at FROM outbox ORDER BY id")
            .fetch_all(database.pool())
            .await
            .unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    let (topic, payload, delivered_at) = &events[0];
    assert_eq!(topic, "order.created");
    assert_eq!(serde_json::from_str::<Value>(payload).unwrap(), created);
    assert_eq!(*delivered_at, None);
    app.close().await.unwrap();
}

/// The orders' outbox relay, started with the app, delivers each order's event to the broker
/// once, in order, and marks it delivered; `close()` stops it before the pool closes.
#[tokio::test]
async fn the_outbox_relay_delivers_each_orders_event_once() {
    use green_tea_recipes::database::{Database, sqlx};
    let db = Scratch::new();
    let app = shop().settings(db.sources()).build().unwrap();
    app.start().await.unwrap();
    let client = TestClient::new(app.clone());
    for quantity in 1..=3 {
        let created = client
            .post("/orders")
            .json(&order("u1", "sencha", quantity))
            .send()
            .await;
        assert_eq!(created.status(), 201);
    }
    // The relay publishes a round, then marks it delivered: wait for both, the broker's
    // three events and no row left undelivered.
    let database = app.get::<Database>("database").await.unwrap();
    let mut published = Vec::new();
    let mut undelivered = -1_i64;
    for _ in 0..3_000 {
        published = client
            .get("/orders/events")
            .send()
            .await
            .json::<Vec<Value>>();
        undelivered = sqlx::query_scalar("SELECT COUNT(*) FROM outbox WHERE delivered_at IS NULL")
            .fetch_one(database.pool())
            .await
            .unwrap();
        if published.len() == 3 && undelivered == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let ids: Vec<i64> = published
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3], "{published:?}");
    assert!(published.iter().all(|p| p["topic"] == "order.created"));
    assert_eq!(published[1]["payload"]["id"], 2);
    assert_eq!(undelivered, 0);
    let health = app.health().await;
    assert_eq!(health.workers[0].name, "orders::outbox_relay");
    assert_eq!(health.workers[0].state.to_string(), "running");
    app.close().await.unwrap();
    assert_eq!(app.health().await.workers[0].state.to_string(), "stopped");
}

/// The relay's interval is a setting of the shop's (`OUTBOX_INTERVAL`), read with the rest
/// and reported with them; the relay, inside `orders`, needs the root's `outboxSettings`.
#[tokio::test]
async fn the_outbox_relays_interval_comes_from_the_shops_settings() {
    use green_tea_recipes::database::OutboxSettings;
    let db = Scratch::new();
    let url = format!("sqlite://{}/shop.db", db.0.display());
    let app = shop()
        .settings(Sources::from_env_map([
            ("DATABASE_URL", url.as_str()),
            ("OUTBOX_INTERVAL", "50ms"),
        ]))
        .build()
        .unwrap();
    let outbox = app.get::<OutboxSettings>("outboxSettings").await.unwrap();
    assert_eq!(outbox.interval, Duration::from_millis(50));
    let report = app.settings_report().to_string();
    assert!(report.contains("(env OUTBOX_INTERVAL)"), "{report}");
    let health = app.health().await;
    assert_eq!(health.workers[0].name, "orders::outbox_relay");
    assert!(
        health.workers[0]
            .needs
            .iter()
            .any(|n| n == "outboxSettings"),
        "{:?}",
        health.workers[0].needs
    );
    app.close().await.unwrap();
}

/// The shop's shape (every module, route, setting and the cache's switch, over both shapes) is
/// the one `examples/shop/shop.lock` records: a change to it shows in review as sentences.
#[test]
fn the_shop_s_shape_is_the_locked_one() {
    let db = Scratch::new();
    let app = shop().settings(db.sources()).build().unwrap();
    green_tea::test::assert_graph_lock(&app, "examples/shop/shop.lock");
}
