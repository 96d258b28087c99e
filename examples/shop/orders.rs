//! The `orders` module: takes orders under `/orders`, over a client of the warehouse of its
//! own (`orders::http`, private) and an order book (private). Each order is priced from the
//! app's `catalog` (through `priceCache?` when there is one), charged through its region's
//! payments (`payments_eu::payments` or `payments_us::payments`), and its user told through
//! every notifier in the app's `notifiers[]`. It exports nothing.

use std::sync::{Arc, Mutex};

use green_tea::prelude::*;
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

#[provider(provides = "http")]
fn http() -> HttpClient {
    HttpClient::new("https://warehouse.example")
}

/// Every order taken.
#[derive(Default)]
pub(crate) struct OrderBook(Mutex<Vec<Order>>);

#[provider(provides = "orderBook")]
fn order_book() -> OrderBook {
    OrderBook::default()
}

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
        #[needs("orderBook")] book: &OrderBook,
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
        let notified = notifiers
            .iter()
            .filter_map(|notifier| notifier.notify(&contact, &text))
            .collect();
        let mut orders = book.0.lock().unwrap();
        let id = orders.len() as u64 + 1;
        let order = Order {
            id,
            user_id: new.user_id,
            product_id: new.product_id,
            region,
            cents,
            charge,
            shipment: warehouse.url(&format!("/shipments/{id}")),
            notified,
        };
        orders.push(order.clone());
        Ok((StatusCode::CREATED, Json(order)))
    }

    #[get("/{id}")]
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
        .prefix("/orders")
}
