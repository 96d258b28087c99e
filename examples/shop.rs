//! A shop: users, products, orders and notifications, in memory. It uses the graph's
//! vocabulary: the notifiers are a list that each channel contributes to (`notifiers[]`), the
//! price cache is an optional need (`priceCache?`, there only with `SHOP_CACHE=1`), and the
//! payment client is wrapped by two decorators (retries, then a count of charges) without its
//! provider knowing.
//!
//! ```sh
//! cargo run --example shop
//! SHOP_CACHE=1 cargo run --example shop
//! ```
//!
//! Reads `PORT` (3000; 0 picks a free port, printed as `listening on http://...`) and
//! `SHOP_CACHE`. The payment gateway is a fake that fails every third charge once, as a flaky
//! network would: the retrying decorator hides that from the orders.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use green_tea::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---- users and products ----------------------------------------------------------------------

#[derive(Clone, Serialize)]
pub(crate) struct User {
    name: String,
    email: String,
    phone: Option<String>,
}

/// The users, by id.
pub(crate) struct Users(BTreeMap<String, User>);

#[provider(provides = "users")]
fn users() -> Users {
    let user = |name: &str, phone: Option<&str>| User {
        name: name.to_owned(),
        email: format!("{}@example.com", name.to_lowercase()),
        phone: phone.map(str::to_owned),
    };
    Users(BTreeMap::from([
        ("u1".to_owned(), user("Ada", Some("+44 20 7946 0001"))),
        ("u2".to_owned(), user("Grace", None)),
    ]))
}

/// The products and their prices in cents, by id: the slow lookup a cache saves.
pub(crate) struct Catalog(BTreeMap<String, u64>);

impl Catalog {
    fn price(&self, product: &str) -> Option<u64> {
        self.0.get(product).copied()
    }
}

#[provider(provides = "catalog")]
fn catalog() -> Catalog {
    Catalog(BTreeMap::from([
        ("sencha".to_owned(), 1_200),
        ("matcha".to_owned(), 2_900),
    ]))
}

/// Prices looked up before, kept. Optional: the shop runs without it.
#[derive(Default)]
pub(crate) struct PriceCache {
    prices: Mutex<BTreeMap<String, u64>>,
    hits: AtomicUsize,
}

impl PriceCache {
    fn get_or(&self, product: &str, look_up: impl FnOnce() -> Option<u64>) -> Option<u64> {
        let mut prices = self.prices.lock().unwrap();
        if let Some(&price) = prices.get(product) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Some(price);
        }
        let price = look_up()?;
        prices.insert(product.to_owned(), price);
        Some(price)
    }
}

#[provider(provides = "priceCache")]
fn price_cache() -> PriceCache {
    PriceCache::default()
}

// ---- notifications: a list each channel contributes to ---------------------------------------

/// A way to tell a user about their order.
pub(crate) trait Notifier: Send + Sync {
    /// The message sent, or `None` when the user cannot be reached this way.
    fn notify(&self, user: &User, text: &str) -> Option<String>;
}

/// Every message sent, for `GET /notifications` (a real shop would hand them to a mailer).
#[derive(Default)]
pub(crate) struct Outbox(Mutex<Vec<String>>);

impl Outbox {
    fn sent(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

#[provider(provides = "outbox")]
fn outbox() -> Outbox {
    Outbox::default()
}

struct Email(Arc<Outbox>);

impl Notifier for Email {
    fn notify(&self, user: &User, text: &str) -> Option<String> {
        let message = format!("email to {}: {text}", user.email);
        self.0.0.lock().unwrap().push(message.clone());
        Some(message)
    }
}

struct Sms(Arc<Outbox>);

impl Notifier for Sms {
    fn notify(&self, user: &User, text: &str) -> Option<String> {
        let message = format!("sms to {}: {text}", user.phone.as_ref()?);
        self.0.0.lock().unwrap().push(message.clone());
        Some(message)
    }
}

#[provider(provides = "notifiers[]", needs = ["outbox"])]
fn email(outbox: Arc<Outbox>) -> Arc<dyn Notifier> {
    Arc::new(Email(outbox))
}

#[provider(provides = "notifiers[]", needs = ["outbox"])]
fn sms(outbox: Arc<Outbox>) -> Arc<dyn Notifier> {
    Arc::new(Sms(outbox))
}

// ---- payments, decorated ---------------------------------------------------------------------

#[derive(Debug)]
pub(crate) enum PaymentError {
    /// Worth another try.
    Transient,
    /// Not.
    Declined(String),
}

pub(crate) trait Payments: Send + Sync {
    /// Charges `cents` to `user`; the charge's id.
    fn charge(&self, user: &str, cents: u64) -> Result<String, PaymentError>;
}

/// The payment gateway, faked: every third charge fails once, as a flaky network would;
/// charges over 10,000 cents are declined.
#[derive(Default)]
struct FakeGateway {
    calls: AtomicU64,
}

impl Payments for FakeGateway {
    fn charge(&self, user: &str, cents: u64) -> Result<String, PaymentError> {
        let call = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        if cents > 10_000 {
            return Err(PaymentError::Declined(format!(
                "{cents} cents is over the limit"
            )));
        }
        if call.is_multiple_of(3) {
            return Err(PaymentError::Transient);
        }
        Ok(format!("ch_{call}_{user}"))
    }
}

#[provider(provides = "payments")]
fn payments() -> Arc<dyn Payments> {
    Arc::new(FakeGateway::default())
}

/// Tries a transient failure again, up to three times in all.
struct Retrying(Arc<dyn Payments>);

impl Payments for Retrying {
    fn charge(&self, user: &str, cents: u64) -> Result<String, PaymentError> {
        let mut tries = 1;
        loop {
            match self.0.charge(user, cents) {
                Err(PaymentError::Transient) if tries < 3 => tries += 1,
                outcome => return outcome,
            }
        }
    }
}

#[decorator(decorates = "payments")]
fn retrying(inner: &Arc<dyn Payments>) -> Arc<dyn Payments> {
    Arc::new(Retrying(Arc::clone(inner)))
}

/// How many charges the shop asked for, and how many went through.
#[derive(Default, Serialize)]
pub(crate) struct PaymentStats {
    asked: AtomicU64,
    charged: AtomicU64,
}

#[provider(provides = "paymentStats")]
fn payment_stats() -> PaymentStats {
    PaymentStats::default()
}

/// Counts each charge: registered after `retrying`, it wraps it, so it counts what the orders
/// asked for, not the gateway's tries.
struct Counted(Arc<dyn Payments>, Arc<PaymentStats>);

impl Payments for Counted {
    fn charge(&self, user: &str, cents: u64) -> Result<String, PaymentError> {
        self.1.asked.fetch_add(1, Ordering::Relaxed);
        let outcome = self.0.charge(user, cents);
        if outcome.is_ok() {
            self.1.charged.fetch_add(1, Ordering::Relaxed);
        }
        outcome
    }
}

#[decorator(decorates = "payments", needs = ["paymentStats"])]
fn counted(inner: &Arc<dyn Payments>, stats: Arc<PaymentStats>) -> Arc<dyn Payments> {
    Arc::new(Counted(Arc::clone(inner), stats))
}

// ---- orders ----------------------------------------------------------------------------------

/// The body of `POST /orders`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewOrder {
    user_id: String,
    product_id: String,
    quantity: u64,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Order {
    id: u64,
    user_id: String,
    product_id: String,
    cents: u64,
    charge: String,
    notified: Vec<String>,
}

/// Every order taken.
#[derive(Default)]
pub(crate) struct OrderBook(Mutex<Vec<Order>>);

#[provider(provides = "orderBook")]
fn order_book() -> OrderBook {
    OrderBook::default()
}

/// The price of `product`, through the cache when the shop has one.
fn price_of(catalog: &Catalog, cache: Option<&PriceCache>, product: &str) -> Option<u64> {
    match cache {
        Some(cache) => cache.get_or(product, || catalog.price(product)),
        None => catalog.price(product),
    }
}

pub(crate) struct Shop;

#[route("/")]
impl Shop {
    /// Takes an order: prices it, charges the user through the decorated payment client, and
    /// tells the user through every notifier.
    #[post("/orders")]
    #[allow(clippy::too_many_arguments)] // one parameter per need: the signature is the wiring
    async fn create(
        #[body] new: NewOrder,
        #[needs("users")] users: &Users,
        #[needs("catalog")] catalog: &Catalog,
        #[needs("priceCache?")] cache: Option<&PriceCache>,
        #[needs("payments")] payments: &Arc<dyn Payments>,
        #[needs("notifiers[]")] notifiers: All<'_, Arc<dyn Notifier>>,
        #[needs("orderBook")] book: &OrderBook,
    ) -> Result<(StatusCode, Json<Order>), HttpError> {
        let user = users
            .0
            .get(&new.user_id)
            .ok_or_else(|| HttpError::not_found(format!("no user {}", new.user_id)))?;
        let unit = price_of(catalog, cache, &new.product_id)
            .ok_or_else(|| HttpError::not_found(format!("no product {}", new.product_id)))?;
        let cents = unit * new.quantity;
        let charge = payments
            .charge(&new.user_id, cents)
            .map_err(|error| match error {
                PaymentError::Declined(why) => {
                    HttpError::new(402, format!("payment declined: {why}"))
                }
                PaymentError::Transient => {
                    HttpError::new(503, "payments are unavailable; try again")
                }
            })?;
        let text = format!(
            "your order of {} {} is on its way",
            new.quantity, new.product_id
        );
        let notified = notifiers
            .iter()
            .filter_map(|notifier| notifier.notify(user, &text))
            .collect();
        let mut orders = book.0.lock().unwrap();
        let order = Order {
            id: orders.len() as u64 + 1,
            user_id: new.user_id,
            product_id: new.product_id,
            cents,
            charge,
            notified,
        };
        orders.push(order.clone());
        Ok((StatusCode::CREATED, Json(order)))
    }

    #[get("/orders/{id}")]
    async fn show(
        Path(id): Path<u64>,
        #[needs("orderBook")] book: &OrderBook,
    ) -> Result<Json<Order>, HttpError> {
        let orders = book.0.lock().unwrap();
        let order = orders.iter().find(|o| o.id == id).cloned();
        order
            .map(Json)
            .ok_or_else(|| HttpError::not_found(format!("no order {id}")))
    }

    #[get("/products/{id}")]
    async fn product(
        Path(id): Path<String>,
        #[needs("catalog")] catalog: &Catalog,
        #[needs("priceCache?")] cache: Option<&PriceCache>,
    ) -> Result<Json<Value>, HttpError> {
        let cents = price_of(catalog, cache, &id)
            .ok_or_else(|| HttpError::not_found(format!("no product {id}")))?;
        let cache_hits = cache.map(|c| c.hits.load(Ordering::Relaxed));
        Ok(Json(
            json!({ "id": id, "cents": cents, "cacheHits": cache_hits }),
        ))
    }

    #[get("/notifications")]
    async fn notifications(#[needs("outbox")] outbox: &Outbox) -> Json<Vec<String>> {
        Json(outbox.sent())
    }

    #[get("/payments/stats")]
    async fn payment_stats(#[needs("paymentStats")] stats: &PaymentStats) -> Json<Value> {
        Json(json!({
            "asked": stats.asked.load(Ordering::Relaxed),
            "charged": stats.charged.load(Ordering::Relaxed),
        }))
    }
}

/// The whole shop; `cache` adds the price cache. `main` serves it, the tests build it with
/// changes.
pub(crate) fn shop(cache: bool) -> AppBuilder {
    let builder = App::builder()
        .provider(users::provider())
        .provider(catalog::provider())
        .provider(outbox::provider())
        .provider(email::provider())
        .provider(sms::provider())
        .provider(payments::provider())
        .provider(payment_stats::provider())
        .decorator(retrying::decorator())
        .decorator(counted::decorator())
        .provider(order_book::provider())
        .routes(Shop::routes());
    if cache {
        builder.provider(price_cache::provider())
    } else {
        builder
    }
}

#[allow(dead_code)] // tests/examples_shop.rs includes this file for its tests
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt().with_target(false).init();
    let cache = std::env::var_os("SHOP_CACHE").is_some_and(|v| v != "0");
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let app = shop(cache).build()?;
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    println!("listening on http://{addr}");
    println!("\n{}\n", app.explain("/orders")?);
    println!("Try it:");
    println!(
        "  curl -i -X POST http://{addr}/orders -H 'content-type: application/json' -d '{{\"userId\":\"u1\",\"productId\":\"sencha\",\"quantity\":2}}'"
    );
    println!("  curl http://{addr}/notifications");
    println!("  curl http://{addr}/payments/stats");
    println!("Ctrl-C to stop.\n");
    app.serve_listener(listener).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use green_tea::test::TestClient;

    fn order(user: &str, product: &str, quantity: u64) -> Value {
        json!({ "userId": user, "productId": product, "quantity": quantity })
    }

    /// Every notifier is told, in registration order; each skips a user it cannot reach.
    #[tokio::test]
    async fn an_order_is_charged_and_every_notifier_told() {
        let app = shop(false).build().unwrap();
        let client = TestClient::new(app.clone());
        let created = client
            .post("/orders")
            .json(&order("u1", "sencha", 2))
            .send()
            .await;
        assert_eq!(created.status(), 201);
        let created: Value = created.json();
        assert_eq!(created["cents"], 2_400);
        assert_eq!(created["charge"], "ch_1_u1");
        assert_eq!(
            created["notified"],
            json!([
                "email to ada@example.com: your order of 2 sencha is on its way",
                "sms to +44 20 7946 0001: your order of 2 sencha is on its way"
            ])
        );
        let grace = client
            .post("/orders")
            .json(&order("u2", "matcha", 1))
            .send()
            .await;
        let grace: Value = grace.json();
        assert_eq!(
            grace["notified"].as_array().unwrap().len(),
            1,
            "Grace has no phone"
        );
        assert_eq!(
            client
                .get("/notifications")
                .send()
                .await
                .json::<Value>()
                .as_array()
                .unwrap()
                .len(),
            3
        );
        app.close().await.unwrap();
    }

    /// The gateway fails every third charge once: the retrying decorator hides it, and the
    /// counting decorator, outside it, counts one charge per order.
    #[tokio::test]
    async fn the_decorators_retry_and_count_without_the_gateway_knowing() {
        let app = shop(false).build().unwrap();
        let client = TestClient::new(app.clone());
        for _ in 0..3 {
            let created = client
                .post("/orders")
                .json(&order("u2", "sencha", 1))
                .send()
                .await;
            assert_eq!(created.status(), 201);
        }
        let third: Value = client.get("/orders/3").send().await.json();
        assert_eq!(
            third["charge"], "ch_4_u2",
            "the third charge failed once and was tried again"
        );
        let stats: Value = client.get("/payments/stats").send().await.json();
        assert_eq!(stats, json!({ "asked": 3, "charged": 3 }));
        let declined = client
            .post("/orders")
            .json(&order("u2", "matcha", 10))
            .send()
            .await;
        assert_eq!(declined.status(), 402);
        app.close().await.unwrap();
    }

    /// A test's fake payments: the decorators still wrap it, so it is counted; without them,
    /// it is the fake alone.
    #[tokio::test]
    async fn a_fake_gateway_goes_through_the_decorators_unless_they_are_left_out() {
        struct Approves;
        impl Payments for Approves {
            fn charge(&self, user: &str, _cents: u64) -> Result<String, PaymentError> {
                Ok(format!("fake_{user}"))
            }
        }
        let fake: Arc<dyn Payments> = Arc::new(Approves);
        let app = shop(false)
            .override_value("payments", Arc::clone(&fake))
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
        let stats: Value = client.get("/payments/stats").send().await.json();
        assert_eq!(
            stats["asked"], 1,
            "counted: the decorators wrap the override"
        );
        app.close().await.unwrap();

        let app = shop(false)
            .override_value("payments", fake)
            .without_decorators("payments")
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        client
            .post("/orders")
            .json(&order("u1", "sencha", 1))
            .send()
            .await;
        let stats: Value = client.get("/payments/stats").send().await.json();
        assert_eq!(stats["asked"], 0, "not counted: the fake alone");
        app.close().await.unwrap();
    }

    /// Without a cache the products are looked up each time; with one, the second lookup hits.
    #[tokio::test]
    async fn the_price_cache_is_optional() {
        for (cache, hits) in [(false, Value::Null), (true, json!(1))] {
            let app = shop(cache).build().unwrap();
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
            fn notify(&self, user: &User, _text: &str) -> Option<String> {
                Some(format!("silent to {}", user.name))
            }
        }
        let app = shop(false)
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
        assert_eq!(created["notified"], json!(["silent to Ada"]));
        app.close().await.unwrap();
    }

    /// `explain` shows each shape: the list with its contributors, the optional cache absent,
    /// and the payment client's chain of decorators.
    #[tokio::test]
    async fn explain_shows_the_list_the_optional_cache_and_the_decorators() {
        let app = shop(false).build().unwrap();
        let text = app.explain("/orders").unwrap().to_string();
        assert!(text.contains("priceCache? (absent)"), "{text}");
        assert!(text.contains("collection `notifiers[]`"), "{text}");
        assert!(
            text.contains("decorator `retrying`") && text.contains("decorator `counted`"),
            "{text}"
        );
        app.close().await.unwrap();
    }
}
