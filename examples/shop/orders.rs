//! The `orders` module: takes orders under `/orders`, over a client of the warehouse of its
//! own (`orders::http`, private), and keeps them in the app's database. Each order is priced
//! from the app's `catalog` (through `priceCache?` when there is one), charged through its
//! region's payments (`payments_eu::payments` or `payments_us::payments`), its user told
//! through every notifier in the app's `notifiers[]`, and written, with an `order.created` row
//! in the outbox for a relay to deliver, in the request's transaction (`tx`): both rows or
//! neither. Its worker, the recipe's outbox relay, delivers those events to the orders'
//! broker (a fake, `orders::broker`, kept in memory: `GET /orders/events` lists what it got),
//! restarting with a backoff when the database is down. It exports nothing.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use green_tea::prelude::*;
use green_tea_recipes::database::{
    Database, Migration, Migrations, OutboxEvent, OutboxRelay, OutboxSink, SharedSink, Transaction,
    http_error, sqlx,
};
use serde::{Deserialize, Serialize};
use shop_notifications::{Contact, Notifier};

use super::client::HttpClient;
use super::payments::{PaymentError, Payments};
use super::products::{Catalog, PriceCache, price_of};
use super::users::{Directory, Region};

/// The body of `POST /orders`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewOrder {
    user_id: String,
    product_id: String,
    quantity: u64,
    /// Where it ships; the user's region if not given.
    region: Option<Region>,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Order {
    id: u64,
    user_id: String,
    product_id: String,
    region: Region,
    cents: u64,
    charge: String,
    shipment: String,
    notified: Vec<String>,
}

/// The orders' broker: a fake that keeps what the relay delivered, in order.
#[derive(Default)]
pub(crate) struct Broker(std::sync::Mutex<Vec<Published>>);

/// An event as the broker got it.
#[derive(Clone, Serialize)]
pub(crate) struct Published {
    id: i64,
    topic: String,
    payload: serde_json::Value,
}

impl OutboxSink for Broker {
    async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError> {
        let payload = serde_json::from_str(&event.payload)?;
        let mut published = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // At least once: an event delivered again (after a round that failed) is one event.
        if !published.iter().any(|p| p.id == event.id) {
            published.push(Published {
                id: event.id,
                topic: event.topic.clone(),
                payload,
            });
        }
        Ok(())
    }
}

#[provider(provides = "broker")]
fn broker() -> Broker {
    Broker::default()
}

/// Where the relay delivers: the broker.
#[provider(provides = "outboxSink", needs = ["broker"])]
fn outbox_sink(broker: Arc<Broker>) -> SharedSink {
    SharedSink::from_arc(broker)
}

#[provider(provides = "http")]
fn http() -> HttpClient {
    HttpClient::new("https://warehouse.example")
}

/// The orders' tables, applied when the app's `database` is built: `orders`, and `outbox`,
/// the events a relay delivers (`created` and `delivered_at` in Unix milliseconds,
/// `delivered_at` NULL until it is). SQLite and PostgreSQL differ only in the identity column.
pub(crate) fn migrations() -> Migrations {
    const TABLES: &str = "CREATE TABLE orders (id {ID}, user_id TEXT NOT NULL, \
        product_id TEXT NOT NULL, quantity BIGINT NOT NULL, region TEXT NOT NULL, \
        cents BIGINT NOT NULL, charge TEXT NOT NULL, notified TEXT NOT NULL); \
        CREATE TABLE outbox (id {ID}, topic TEXT NOT NULL, payload TEXT NOT NULL, \
        created BIGINT NOT NULL, delivered_at BIGINT)";
    Migrations::new().with(Migration::per_backend(
        1,
        "orders and their outbox",
        TABLES.replace("{ID}", "INTEGER PRIMARY KEY"),
        TABLES.replace("{ID}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    ))
}

/// An order's row: id, user, product, quantity, region, cents, charge, notified (JSON).
type OrderRow = (i64, String, String, i64, String, i64, String, String);

/// The payments of each region: two registrations of one module, each exporting `payments`.
pub(crate) struct Gateways {
    eu: Arc<dyn Payments>,
    us: Arc<dyn Payments>,
}

impl Gateways {
    fn of(&self, region: Region) -> &dyn Payments {
        match region {
            Region::Eu => &*self.eu,
            Region::Us => &*self.us,
        }
    }
}

#[provider(provides = "gateways", needs = ["payments_eu::payments", "payments_us::payments"])]
fn gateways(eu: &Arc<dyn Payments>, us: &Arc<dyn Payments>) -> Gateways {
    Gateways {
        eu: Arc::clone(eu),
        us: Arc::clone(us),
    }
}

pub(crate) struct Orders;

#[route("/")]
impl Orders {
    /// Takes an order: prices it, charges the user through their region's payments, books
    /// its shipment at the warehouse, and tells the user through every notifier.
    #[post("/")]
    #[allow(clippy::too_many_arguments)] // one parameter per need: the signature is the wiring
    async fn create(
        #[body] new: NewOrder,
        #[needs("users::directory")] users: &Directory,
        #[needs("catalog")] catalog: &Catalog,
        #[needs("priceCache?")] cache: Option<&PriceCache>,
        #[needs("gateways")] gateways: &Gateways,
        #[needs("notifiers[]")] notifiers: All<'_, Arc<dyn Notifier>>,
        #[needs("http")] warehouse: &HttpClient,
        #[needs("tx")] tx: &Transaction,
    ) -> Result<(StatusCode, Json<Order>), HttpError> {
        let user = users
            .find(&new.user_id)
            .ok_or_else(|| HttpError::not_found(format!("no user {}", new.user_id)))?;
        let unit = price_of(catalog, cache, &new.product_id)
            .ok_or_else(|| HttpError::not_found(format!("no product {}", new.product_id)))?;
        let cents = unit * new.quantity;
        let region = new.region.unwrap_or(user.region);
        let charge = gateways
            .of(region)
            .charge(&new.user_id, cents)
            .await
            .map_err(payment_refused)?;
        let text = format!(
            "your order of {} {} is on its way",
            new.quantity, new.product_id
        );
        let contact = Contact {
            email: &user.email,
            phone: user.phone.as_deref(),
        };
        let notified: Vec<String> = notifiers
            .iter()
            .filter_map(|notifier| notifier.notify(&contact, &text))
            .collect();
        // One lock for both statements: the guard is the request's transaction's connection.
        let mut connection = tx.lock().await;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO orders (user_id, product_id, quantity, region, cents, charge, notified) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(new.user_id.clone())
        .bind(new.product_id.clone())
        .bind(to_i64(new.quantity)?)
        .bind(region.code())
        .bind(to_i64(cents)?)
        .bind(charge.clone())
        .bind(serde_json::to_string(&notified).map_err(|_| HttpError::internal())?)
        .fetch_one(&mut *connection)
        .await
        .map_err(http_error)?;
        let order = Order {
            id: id as u64,
            user_id: new.user_id,
            product_id: new.product_id,
            region,
            cents,
            charge,
            shipment: warehouse.url(&format!("/shipments/{id}")),
            notified,
        };
        sqlx::query("INSERT INTO outbox (topic, payload, created) VALUES ($1, $2, $3)")
            .bind("order.created")
            .bind(serde_json::to_string(&order).map_err(|_| HttpError::internal())?)
            .bind(now_millis())
            .execute(&mut *connection)
            .await
            .map_err(http_error)?;
        // Committed after this returns, before the 201 is sent; a commit that fails is a 500.
        Ok((StatusCode::CREATED, Json(order)))
    }

    /// What the relay delivered to the broker, in order.
    #[get("/events")]
    async fn events(#[needs("broker")] broker: &Broker) -> Json<Vec<Published>> {
        Json(broker.0.lock().unwrap_or_else(|p| p.into_inner()).clone())
    }

    /// Reads an order through the pool: a read needs no transaction.
    #[get("/{id}")]
    async fn show(
        Path(id): Path<u64>,
        #[needs("database")] database: &Database,
        #[needs("http")] warehouse: &HttpClient,
    ) -> Result<Json<Order>, HttpError> {
        let row: Option<OrderRow> = sqlx::query_as(
            "SELECT id, user_id, product_id, quantity, region, cents, charge, notified \
             FROM orders WHERE id = $1",
        )
        .bind(to_i64(id)?)
        .fetch_optional(database.pool())
        .await
        .map_err(http_error)?;
        let (id, user_id, product_id, _quantity, region, cents, charge, notified) =
            row.ok_or_else(|| HttpError::not_found(format!("no order {id}")))?;
        Ok(Json(Order {
            id: id as u64,
            user_id,
            product_id,
            region: Region::from_code(&region).ok_or_else(HttpError::internal)?,
            cents: cents as u64,
            charge,
            shipment: warehouse.url(&format!("/shipments/{id}")),
            notified: serde_json::from_str(&notified).map_err(|_| HttpError::internal())?,
        }))
    }
}

/// A count as the database stores it (a signed 64-bit integer).
fn to_i64(n: u64) -> Result<i64, HttpError> {
    i64::try_from(n).map_err(|_| HttpError::bad_request(format!("{n} is too large")))
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The response for a charge that did not go through.
fn payment_refused(error: PaymentError) -> HttpError {
    match error {
        PaymentError::Declined(why) => HttpError::new(402, format!("payment declined: {why}")),
        PaymentError::Transient => HttpError::new(503, "payments are unavailable; try again"),
        PaymentError::Unavailable(retry_after) => {
            HttpError::new(503, "payments are unavailable; try again later")
                .with_header("retry-after", retry_after.as_secs().max(1).to_string())
        }
    }
}

/// The orders module, served under `/orders`.
pub(crate) fn module() -> Module {
    Module::new("orders")
        .discover_in(&[module_path!()])
        // Needs the app's `database` and `outboxSettings` (`OUTBOX_*`), and the module's own
        // `outboxSink`.
        .worker(OutboxRelay::new())
        .prefix("/orders")
}
