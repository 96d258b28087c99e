//! A shop, as an app of modules, its orders in a database: each area is a [`Module`] with keys of its own,
//! private unless it exports them, and each has a private `http` client of the same name
//! without a collision (`users::http`, `orders::http`, `notifications::http`).
//!
//! - `users` (users.rs): the directory of users, exported as `users::directory`;
//!   `GET /users/{id}`.
//! - `orders` (orders.rs): `POST /orders` writes the order, and an `order.created` event in
//!   the outbox table for a relay to deliver, in the request's transaction (both or neither;
//!   committed before the 201 is sent); `GET /orders/{id}` reads it. Its worker, the
//!   recipe's outbox relay (`orders::outbox_relay`), delivers the events to the orders' fake
//!   broker, at least once, in order: `GET /orders/events` lists them. It exports nothing.
//! - The database is the app's (green-tea-recipes' `database` recipe): `database`, a pool
//!   whose migrations (the orders' tables) run at start-up, and `tx`, the step that begins each
//!   write's transaction and commits it when the request succeeds. SQLite by default, in a
//!   file beside the build (`target/debug/shop-data/shop.db` under `cargo run`; `cargo clean`
//!   removes it); PostgreSQL when `DATABASE_URL=postgres://...`. `GET /readyz` answers 503
//!   while the database does not answer its `SELECT 1`.
//! - `notifications`: a crate of its own, `shop-notifications` (crates/shop-notifications),
//!   which depends on green-tea-core alone and finds its providers with `discover_in`; it
//!   adds an email and an SMS notifier to the app's `notifiers[]` list and exports `outbox`.
//!   The app adds a route to its module (notifications.rs): `GET /notifications`.
//! - `payments` (payments.rs): one module registered twice, as `payments_eu` and
//!   `payments_us`, each over its own upstream, behind its own circuit breaker, its client
//!   wrapped by two decorators (retries, then a count of charges) without its provider
//!   knowing; `GET /payments/eu/stats`, `GET /payments/us/stats`. An order is charged through
//!   its region's (the user's, or the order's `region`).
//! - The products (products.rs) are the app's own keys: `catalog`, and the price cache,
//!   an optional need (`priceCache?`), on only with `SHOP_CACHE=1`: the switch `cacheOn`, so
//!   that `build()` checks the shop with the cache and without it, whichever it runs with;
//!   `GET /products/{id}`.
//! - `GET /_green-tea`: the explain page, every route's and the relay's chain as a picture,
//!   each module a box.
//!
//! ```sh
//! cargo run --example shop
//! SHOP_CACHE=1 cargo run --example shop
//! DATABASE_URL=postgres://user:password@127.0.0.1:5432/shop cargo run --example shop
//! ```
//!
//! Reads `PORT` (3000; 0 picks a free port, printed as `listening on http://...`),
//! `SHOP_CACHE` and the `DATABASE_*` settings (`DATABASE_URL`, `DATABASE_MAX_CONNECTIONS`,
//! `DATABASE_ACQUIRE_TIMEOUT`, `DATABASE_BUSY_TIMEOUT`, `DATABASE_SYNCHRONOUS`), and prints `explain` of `/orders`. Each payment gateway is a fake that fails
//! every third charge once, as a flaky network would: the retrying decorator hides that from
//! the orders, and the breaker, which counts failures in a row, stays closed.

mod client;
mod notifications;
mod orders;
mod payments;
mod products;
mod users;

use green_tea::prelude::*;
use green_tea::settings::Sources;
use green_tea_recipes::database::{
    Backend, Database, DatabasePool, DatabaseSettings, OutboxSettings, TransactionStep,
};

/// The shop's own settings.
#[derive(Settings)]
#[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
pub(crate) struct ShopSettings {
    /// `SHOP_CACHE=1`: prices looked up once are kept (the switch `cacheOn`).
    #[settings(default = "false")]
    pub(crate) cache: bool,
}

/// The whole shop. `main` serves it, the tests build it with changes (and a database of their
/// own, through the settings' sources).
pub(crate) fn shop() -> AppBuilder {
    App::builder()
        .provider(ShopSettings::provider())
        // The price cache is on where `SHOP_CACHE` says (`#[provider(.., when = "cacheOn")]`).
        .switch(Switch::new("cacheOn", |shop: &ShopSettings| shop.cache).reads("cache"))
        .provider(products::price_cache::provider())
        .provider(DatabaseSettings::provider())
        .provider(DatabasePool::new(orders::migrations()))
        .step(TransactionStep::new())
        // The orders' outbox relay's: `OUTBOX_INTERVAL`, `OUTBOX_BATCH`.
        .provider(OutboxSettings::provider())
        .critical("database")
        .async_health_check::<Database>("database")
        .health_routes("/healthz", "/readyz")
        // Every route's and worker's chain as a picture, the modules as boxes.
        .explain_page("/_green-tea")
        .provider(products::catalog::provider())
        .routes(products::Products::routes())
        .module(users::module())
        .module(notifications::module())
        .module(
            payments::module("https://pay-eu.example")
                .named("payments_eu")
                .prefix("/payments/eu"),
        )
        .module(
            payments::module("https://pay-us.example")
                .named("payments_us")
                .prefix("/payments/us"),
        )
        .module(orders::module())
}

#[allow(dead_code)] // tests/examples/shop.rs includes this file for its tests
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt().with_target(false).init();
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    // The environment over the shop's own default database: a SQLite file beside the build.
    let defaults = format!("[database]\nurl = {:?}\n", default_database_url());
    let app = shop()
        .settings(Sources::from_env().toml(defaults, "the shop's defaults"))
        .build()?;
    // The pool is built (and the migrations run) before the first request.
    app.start().await?;
    let database = app.get::<Database>("database").await?;
    match database.backend() {
        Backend::Sqlite => {
            let settings = app.get::<DatabaseSettings>("databaseSettings").await?;
            println!("orders are kept in SQLite: {}", settings.url.expose());
        }
        // Not the URL: it may hold a password.
        backend => println!("orders are kept in {backend}"),
    }
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    println!("\n{}\n", app.explain("/orders")?);
    println!("Try it:");
    println!(
        "  curl -i -X POST http://{addr}/orders -H 'content-type: application/json' -d '{{\"userId\":\"u1\",\"productId\":\"sencha\",\"quantity\":2}}'"
    );
    println!("  curl http://{addr}/orders/events   # what the outbox relay delivered");
    println!("  curl http://{addr}/notifications");
    println!("  curl http://{addr}/payments/eu/stats");
    println!("  open http://{addr}/_green-tea         # every route's and worker's chain");
    println!("Ctrl-C to stop.\n");
    served.await?;
    Ok(())
}

/// `sqlite://<target>/debug/shop-data/shop.db`: beside the build's own directory, so that a
/// fresh checkout starts with an empty shop and `cargo clean` removes it.
fn default_database_url() -> String {
    let build = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.to_owned()))
        .unwrap_or_else(std::env::temp_dir);
    format!(
        "sqlite://{}",
        build.join("shop-data").join("shop.db").display()
    )
}

#[cfg(test)]
mod tests;
