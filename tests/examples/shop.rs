//! The `shop` example: its own tests in process (examples/shop/tests.rs, included here rather
//! than `test = true` on the example, as tests/examples/testing.rs explains), and the example
//! itself, started as its own binary and driven over real HTTP (`cargo test` builds it, as it
//! builds every example; alone, `cargo build --example shop` first).

#[allow(dead_code, clippy::module_inception)]
// its `main` runs as the example, not here
// The example under its own name, inside the topic named after it.
#[path = "../../examples/shop/main.rs"]
mod shop;

#[cfg(unix)]
use crate::support;

// The recipes' PostgreSQL harness: a throwaway server per test.
#[cfg(unix)]
#[path = "../../crates/recipes/tests/support/postgres.rs"]
mod postgres;

/// Over HTTP: an order in each region is charged through that region's gateway and counted by
/// its own payments module, the user is told through the notifications crate's notifiers
/// (and its outbox lists what its client posted), and the printed `explain` names each
/// area's private client by its qualified key.
#[cfg(unix)]
#[tokio::test]
async fn the_shop_charges_each_region_through_its_own_gateway_over_http() {
    use serde_json::json;
    use support::examples::Example;
    use support::http::{get, http1_client, post};

    let running = Example::start_until("shop", &[], &[], "Ctrl-C to stop.");
    for key in [
        "users::http: HttpClient",
        "orders::http: HttpClient",
        "notifications::http: HttpClient",
        "payments_eu::gateway",
        "payments_us::gateway",
    ] {
        assert!(running.printed(key), "explain names `{key}`");
    }
    let client = http1_client();
    let url = |path: &str| format!("{}{path}", running.base());
    let order = |user: &str| json!({ "userId": user, "productId": "sencha", "quantity": 2 });

    let ada = post(&client, &url("/orders"), &order("u1")).await.unwrap();
    assert_eq!(ada.status, 201, "{}", ada.text());
    let ada = ada.json();
    assert_eq!(ada["region"], "eu");
    assert_eq!(ada["charge"], "https://pay-eu.example/charges/ch_1_u1");
    assert_eq!(
        ada["notified"][0],
        "email to ada@example.com: your order of 2 sencha is on its way"
    );
    let shown = get(&client, &url(&format!("/orders/{}", ada["id"])))
        .await
        .unwrap();
    assert_eq!(shown.status, 200, "{}", shown.text());
    assert_eq!(shown.json(), ada, "read back from its database");
    let grace = post(&client, &url("/orders"), &order("u2")).await.unwrap();
    assert_eq!(grace.status, 201, "{}", grace.text());
    let grace = grace.json();
    assert_eq!(grace["region"], "us");
    assert_eq!(grace["charge"], "https://pay-us.example/charges/ch_1_u2");

    for region in ["eu", "us"] {
        let stats = get(&client, &url(&format!("/payments/{region}/stats")))
            .await
            .unwrap();
        assert_eq!(
            stats.json(),
            json!({ "asked": 1, "charged": 1, "breaker": "closed" }),
            "{region}"
        );
    }
    let sent = get(&client, &url("/notifications")).await.unwrap().json();
    assert_eq!(
        sent,
        json!([
            "POST https://notify.example/email to ada@example.com: your order of 2 sencha is on its way",
            "POST https://notify.example/sms to +44 20 7946 0001: your order of 2 sencha is on its way",
            "POST https://notify.example/email to grace@example.com: your order of 2 sencha is on its way",
        ])
    );
    let user = get(&client, &url("/users/u2")).await.unwrap().json();
    assert_eq!(user["user"]["region"], "us");
    assert_eq!(user["source"], "https://accounts.example/accounts/u2");
    assert!(running.stop().success());
}

/// The shop on the database `DATABASE_URL` names, over HTTP: an order is written, read back,
/// and its `order.created` event is in the outbox, delivered by the relay to the broker and
/// marked so; stopped and started again on the same database (its migrations found applied),
/// the order is still there and the event is not delivered again.
#[cfg(unix)]
async fn the_shop_keeps_its_orders_in(url: &str) {
    use green_tea_recipes::database::sqlx;
    use serde_json::json;
    use support::examples::Example;
    use support::http::{get, http1_client, post};

    let env = [("DATABASE_URL", url)];
    let running = Example::start_until("shop", &[], &env, "Ctrl-C to stop.");
    let client = http1_client();
    let order = json!({ "userId": "u1", "productId": "sencha", "quantity": 2 });
    let created = post(&client, &format!("{}/orders", running.base()), &order)
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    let path = format!("/orders/{}", created["id"]);
    // The outbox relay delivers the order's event to the shop's broker.
    let events = format!("{}/orders/events", running.base());
    support::http::until_async("the relay to deliver the event", || async {
        let published = get(&client, &events).await.unwrap().json();
        published.as_array().is_some_and(|p| p.len() == 1)
    })
    .await;
    assert!(running.stop().success());

    let again = Example::start_until("shop", &[], &env, "Ctrl-C to stop.");
    let shown = get(&client, &format!("{}{path}", again.base()))
        .await
        .unwrap();
    assert_eq!(shown.status, 200, "{}", shown.text());
    assert_eq!(shown.json(), created);
    let published = get(&client, &format!("{}/orders/events", again.base()))
        .await
        .unwrap()
        .json();
    assert_eq!(
        published,
        serde_json::json!([]),
        "delivered once, not again"
    );
    assert!(again.stop().success());

    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url)
        .await
        .expect("the shop's database");
    let events: Vec<(String, String, Option<i64>)> =
        sqlx::query_as("SELECT topic, payload, delivered_at FROM outbox")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].0, "order.created");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&events[0].1).unwrap(),
        created
    );
    assert!(events[0].2.is_some(), "marked delivered: {events:?}");
    pool.close().await;
}

/// On a SQLite file of the test's own (`DATABASE_URL=sqlite://...`; the shop makes the file).
#[cfg(unix)]
#[tokio::test]
async fn the_shop_keeps_its_orders_in_sqlite() {
    let dir = std::env::temp_dir().join(format!("gt-shop-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    the_shop_keeps_its_orders_in(&format!("sqlite://{}/shop.db", dir.display())).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// On PostgreSQL (`DATABASE_URL=postgres://...`), a server of the test's own; skipped where
/// PostgreSQL is missing, unless `GREEN_TEA_REQUIRE_TOOLS=1`.
#[cfg(unix)]
#[tokio::test]
async fn the_shop_keeps_its_orders_in_postgres() {
    let Some(server) = postgres::Postgres::start_new() else {
        return;
    };
    the_shop_keeps_its_orders_in(&server.create_database("shop")).await;
}
