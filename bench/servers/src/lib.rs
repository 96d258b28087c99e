//! What the four benchmark servers share: the order, the fake billing upstream, the settings.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// The body of `POST /orders`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub user_id: String,
    pub amount: u64,
}

/// The response body.
#[derive(Debug, Serialize)]
pub struct Created {
    pub ok: bool,
}

/// The in-memory fake billing API: counts charges.
#[derive(Debug, Default)]
pub struct BillingApi {
    charges: AtomicU64,
}

impl BillingApi {
    pub fn charge(&self, order: &Order) -> u64 {
        std::hint::black_box((&order.user_id, order.amount));
        self.charges.fetch_add(1, Ordering::Relaxed)
    }
}

/// What handlers use: billing wrapped (as the reference guide's `billing` wraps `billingApi`).
#[derive(Debug)]
pub struct Billing {
    pub api: std::sync::Arc<BillingApi>,
}

impl Billing {
    pub fn charge(&self, order: &Order) -> u64 {
        self.api.charge(order)
    }
}

/// `PORT` (default 3000) and `WORKERS` (default 1).
pub fn settings() -> (u16, usize) {
    let port = std::env::var("PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(3000);
    let workers = std::env::var("WORKERS").ok().and_then(|w| w.parse().ok()).unwrap_or(1);
    (port, workers)
}

/// A multi-threaded tokio runtime with `workers` threads.
pub fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The step's value: the request id header, or "-".
pub fn request_id(headers: &http::HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-")
        .to_owned()
}
