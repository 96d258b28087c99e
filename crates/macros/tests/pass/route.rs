//! `#[route]` expansions, used through the facade as an application would.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use bytes::Bytes;
use green_tea::prelude::*;
use green_tea::test::TestClient;
use http::HeaderMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

// --- the reference page's Orders example, with a local fake billing ----------------------

#[derive(Deserialize)]
struct Order {
    item: String,
    amount: u64,
}

#[derive(Serialize, Deserialize)]
struct Created {
    id: u64,
    item: String,
    charged: u64,
}

/// Stands in for the circuit-breaker-guarded billing client.
struct GuardedBilling {
    charged: AtomicU64,
    orders: Mutex<Vec<String>>,
}

impl GuardedBilling {
    fn charge(&self, amount: u64) -> Result<u64, HttpError> {
        if amount == 0 {
            return Err(HttpError::new(402, "nothing to charge"));
        }
        Ok(self.charged.fetch_add(amount, Ordering::SeqCst) + amount)
    }
}

#[provider(provides = "billing")]
fn guarded_billing() -> GuardedBilling {
    GuardedBilling {
        charged: AtomicU64::new(0),
        orders: Mutex::new(Vec::new()),
    }
}

static AUDITED: AtomicUsize = AtomicUsize::new(0);

/// Runs before every route of the block.
#[step]
fn audit() {
    AUDITED.fetch_add(1, Ordering::SeqCst);
}

/// Runs before `remove` only.
#[step]
fn require_admin(headers: &HeaderMap) -> Result<(), HttpError> {
    match headers.get("x-role") {
        Some(role) if role == "admin" => Ok(()),
        _ => Err(HttpError::forbidden("admins only")),
    }
}

#[derive(Deserialize)]
struct Search {
    q: String,
}

struct Orders;

#[route("/orders", steps = ["audit"])]
impl Orders {
    #[post("/")]
    async fn create(
        #[body] order: Order,
        #[needs("billing")] billing: &GuardedBilling,
    ) -> Result<Json<Created>, HttpError> {
        let charged = billing.charge(order.amount)?;
        let mut orders = billing.orders.lock().unwrap();
        orders.push(order.item.clone());
        Ok(Json(Created {
            id: orders.len() as u64 - 1,
            item: order.item,
            charged,
        }))
    }

    #[get("/{id}")]
    async fn show(
        Path(id): Path<u64>,
        #[needs("billing")] billing: Arc<GuardedBilling>,
    ) -> Result<String, HttpError> {
        let orders = billing.orders.lock().unwrap();
        let item = orders
            .get(id as usize)
            .ok_or_else(|| HttpError::not_found("no such order"))?;
        Ok(item.clone())
    }

    /// A sync handler.
    #[get("/search")]
    fn search(Query(search): Query<Search>) -> String {
        format!("searching {}", search.q)
    }

    #[put("/{id}/note", body_limit = 16)]
    async fn note(Path(id): Path<u64>, #[body] note: String) -> (StatusCode, String) {
        (StatusCode::ACCEPTED, format!("{id}: {note}"))
    }

    #[patch("/{id}/raw")]
    async fn raw(headers: HeaderMap, #[body] raw: Bytes) -> String {
        let kind = headers
            .get("content-type")
            .map_or("none", |v| v.to_str().unwrap());
        format!("{} bytes of {kind}", raw.len())
    }

    #[delete("/{id}", steps = ["require_admin"])]
    async fn remove(Path(_id): Path<u64>) -> &'static str {
        "removed"
    }

    /// Not a route: stays a plain associated fn.
    fn helper() -> u32 {
        7
    }

    #[cfg(any())]
    #[get("/hidden")]
    async fn hidden() -> &'static str {
        "configured out"
    }
}

/// `Self` in a handler's types means the block's type; `create` is also a method of `Orders`'s
/// block, in the same module.
#[derive(Serialize, Deserialize)]
struct Echo {
    text: String,
}

#[route("/echo")]
impl Echo {
    #[post("/")]
    async fn create(#[body] echo: Self) -> Json<Self> {
        Json(Echo {
            text: echo.text.to_uppercase(),
        })
    }
}

fn app() -> App {
    App::builder()
        .provider(guarded_billing::provider())
        .step(audit::step())
        .step(require_admin::step())
        .routes(Orders::routes())
        .routes(Echo::routes())
        .build()
        .unwrap()
}

#[tokio::test]
async fn json_body_and_a_needed_provider() {
    let app = app();
    let client = TestClient::new(app.clone());
    let created = client
        .post("/orders")
        .json(&serde_json::json!({ "item": "tea", "amount": 3 }))
        .send()
        .await;
    assert_eq!(created.status(), 200);
    let created: Created = created.json();
    assert_eq!(
        (created.id, created.item.as_str(), created.charged),
        (0, "tea", 3)
    );
    let refused = client
        .post("/orders")
        .json(&serde_json::json!({ "item": "air", "amount": 0 }))
        .send()
        .await;
    assert_eq!(refused.status(), 402);
    let malformed = client
        .post("/orders")
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await;
    assert_eq!(malformed.status(), 400);
    let not_json = client.post("/orders").body("tea").send().await;
    assert_eq!(not_json.status(), 415);
    app.close().await.unwrap();
}

#[tokio::test]
async fn path_and_arc_needs() {
    let app = app();
    let client = TestClient::new(app.clone());
    client
        .post("/orders")
        .json(&serde_json::json!({ "item": "tea", "amount": 1 }))
        .send()
        .await;
    assert_eq!(client.get("/orders/0").send().await.text(), "tea");
    assert_eq!(client.get("/orders/5").send().await.status(), 404);
    assert_eq!(client.get("/orders/zero").send().await.status(), 400);
    app.close().await.unwrap();
}

#[tokio::test]
async fn query_text_bytes_and_headers() {
    let app = app();
    let client = TestClient::new(app.clone());
    let found = client.get("/orders/search?q=green").send().await;
    assert_eq!(found.text(), "searching green");
    assert_eq!(client.get("/orders/search").send().await.status(), 400);
    let noted = client.put("/orders/4/note").body("hot").send().await;
    assert_eq!(noted.status(), StatusCode::ACCEPTED);
    assert_eq!(noted.text(), "4: hot");
    let too_long = client
        .put("/orders/4/note")
        .body("x".repeat(17))
        .send()
        .await;
    assert_eq!(too_long.status(), 413, "body_limit = 16");
    let raw = client
        .patch("/orders/1/raw")
        .header("content-type", "application/octet-stream")
        .body(vec![0u8, 1, 2])
        .send()
        .await;
    assert_eq!(raw.text(), "3 bytes of application/octet-stream");
    app.close().await.unwrap();
}

#[tokio::test]
async fn block_and_method_steps_guard_their_routes() {
    let app = app();
    let client = TestClient::new(app.clone());
    let before = AUDITED.load(Ordering::SeqCst);
    assert_eq!(client.delete("/orders/1").send().await.status(), 403);
    let removed = client
        .delete("/orders/1")
        .header("x-role", "admin")
        .send()
        .await;
    assert_eq!(removed.text(), "removed");
    client.get("/orders/search?q=x").send().await;
    // The 403 may come before `audit` runs: independent steps have no set order.
    assert!(
        AUDITED.load(Ordering::SeqCst) >= before + 2,
        "audit runs on every route"
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn self_in_a_handler_is_the_block_type() {
    let app = app();
    let client = TestClient::new(app.clone());
    let echoed = client
        .post("/echo")
        .json(&serde_json::json!({ "text": "hi" }))
        .send()
        .await;
    assert_eq!(echoed.json::<serde_json::Value>()["text"], "HI");
    app.close().await.unwrap();
}

#[test]
fn routes_are_named_after_their_methods_and_point_at_them() {
    let routes = Orders::routes();
    let listed: Vec<(String, &str)> = routes
        .iter()
        .map(|r| (r.method().to_string(), r.path()))
        .collect();
    assert_eq!(
        listed,
        [
            ("POST".to_owned(), "/orders"),
            ("GET".to_owned(), "/orders/{id}"),
            ("GET".to_owned(), "/orders/search"),
            ("PUT".to_owned(), "/orders/{id}/note"),
            ("PATCH".to_owned(), "/orders/{id}/raw"),
            ("DELETE".to_owned(), "/orders/{id}"),
        ]
    );
    let explained = app().explain("/orders").unwrap();
    let route = &explained.routes[0];
    assert_eq!(route.handler, "Orders::create");
    assert!(
        route.location.contains("pass/route.rs"),
        "{}",
        route.location
    );
    assert_eq!(Orders::helper(), 7);
}

#[tokio::test]
async fn handlers_stay_callable() {
    let billing = guarded_billing();
    let order = Order {
        item: "tea".to_owned(),
        amount: 2,
    };
    let Json(created) = Orders::create(order, &billing).await.unwrap();
    assert_eq!(created.charged, 2);
    assert_eq!(
        Orders::search(Query(Search { q: "a".to_owned() })),
        "searching a"
    );
}

// --- `layer = ...`: tower layers on one method ---------------------------------------------

/// How many times `Reports`' layer expressions were evaluated.
static LAYERS_MADE: AtomicUsize = AtomicUsize::new(0);

async fn stamp(mut response: axum::response::Response) -> axum::response::Response {
    let value = http::HeaderValue::from_static("yes");
    response.headers_mut().insert("x-stamped", value);
    response
}

async fn trail_first(mut response: axum::response::Response) -> axum::response::Response {
    let value = http::HeaderValue::from_static("first");
    response.headers_mut().append("x-trail", value);
    response
}

async fn trail_second(mut response: axum::response::Response) -> axum::response::Response {
    let value = http::HeaderValue::from_static("second");
    response.headers_mut().append("x-trail", value);
    response
}

struct Reports;

#[route("/reports")]
impl Reports {
    /// What one evaluation adds to `LAYERS_MADE`: a layer expression may name `Self`.
    const MADE: usize = 1;

    #[get(
        "/daily",
        layer = {
            LAYERS_MADE.fetch_add(Self::MADE, Ordering::SeqCst);
            axum::middleware::map_response(stamp)
        }
    )]
    fn daily() -> &'static str {
        "daily"
    }

    #[get("/weekly")]
    fn weekly() -> &'static str {
        "weekly"
    }

    #[get(
        "/monthly",
        layer = [
            axum::middleware::map_response(trail_first),
            axum::middleware::map_response(trail_second),
        ]
    )]
    fn monthly() -> &'static str {
        "monthly"
    }
}

#[tokio::test]
async fn a_layer_wraps_its_method_only() {
    // Evaluated each time `routes()` makes the routes (here, once).
    let app = App::builder().routes(Reports::routes()).build().unwrap();
    assert_eq!(LAYERS_MADE.load(Ordering::SeqCst), 1);
    let client = TestClient::new(app.clone());
    let daily = client.get("/reports/daily").send().await;
    assert_eq!(daily.text(), "daily");
    assert_eq!(daily.headers()["x-stamped"], "yes");
    let weekly = client.get("/reports/weekly").send().await;
    assert_eq!(weekly.text(), "weekly");
    assert!(weekly.headers().get("x-stamped").is_none());
    assert!(weekly.headers().get("x-trail").is_none());

    // Several apply in the order written, the last outermost.
    let monthly = client.get("/reports/monthly").send().await;
    assert_eq!(monthly.text(), "monthly");
    // The response goes back out through the first layer, then the second.
    let trail: Vec<_> = monthly.headers().get_all("x-trail").iter().collect();
    assert_eq!(trail, ["first", "second"]);
    assert!(monthly.headers().get("x-stamped").is_none());
    app.close().await.unwrap();
}

/// A block's layer wraps each of its routes, outside the method's own.
struct Archive;

#[route("/archive", layer = axum::middleware::map_response(trail_second))]
impl Archive {
    #[get("/old", layer = axum::middleware::map_response(trail_first))]
    fn old() -> &'static str {
        "old"
    }

    #[get("/recent")]
    fn recent() -> &'static str {
        "recent"
    }
}

#[tokio::test]
async fn a_block_layer_wraps_every_route_outside_the_methods_own() {
    let app = App::builder().routes(Archive::routes()).build().unwrap();
    let client = TestClient::new(app.clone());
    let old = client.get("/archive/old").send().await;
    let trail: Vec<_> = old.headers().get_all("x-trail").iter().collect();
    assert_eq!(trail, ["first", "second"]);
    let recent = client.get("/archive/recent").send().await;
    let trail: Vec<_> = recent.headers().get_all("x-trail").iter().collect();
    assert_eq!(trail, ["second"]);
    app.close().await.unwrap();
}
