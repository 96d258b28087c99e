//! `green_tea_app`'s app with a request id that finishes (issue 27), in the macro form: in
//! `finishing_app` the `requestId` step is marked `finish` and its value's [`Finish`] does
//! nothing, so what is measured beside green-tea-inproc is the finishing machinery alone; in
//! `locking_app` the value also holds a `tokio::sync::Mutex` that the handler locks once, as a
//! handler locks the database recipe's transaction (`tx.lock().await`).
//!
//! A module of its own behind the `green-tea-finish` feature, so that the binaries of the
//! other green-tea apps are built from the same library as before: in release, code added to
//! their crate can move their figures by how it is split into codegen units.

use green_tea::prelude::*;
use green_tea::steps::{Finish, Outcome};
use http::HeaderMap;
use std::sync::Arc;

use crate::{Billing, BillingApi, Created, Order};

#[provider(provides = "billingApi")]
fn billing_api() -> BillingApi {
    BillingApi::default()
}

/// Wraps the fake API: handlers reach it only through `billing`.
#[provider(provides = "billing", needs = ["billingApi"])]
fn billing(billing_api: Arc<BillingApi>) -> Billing {
    Billing { api: billing_api }
}

/// The request id as a value that finishes; its finish does nothing.
pub struct FinishingId(pub String);

impl Finish for FinishingId {
    async fn finish(self, _outcome: &Outcome) -> Result<(), HttpError> {
        Ok(())
    }
}

/// The request id header, or "-", as a value that finishes.
#[step(provides = "requestId", finish)]
fn finishing_request_id(headers: &HeaderMap) -> FinishingId {
    FinishingId(crate::request_id(headers))
}

/// `POST /orders`, needing the finishing request id.
pub struct FinishingOrders;

#[route("/orders")]
impl FinishingOrders {
    #[post("/")]
    async fn create(
        #[body] order: Order,
        #[needs("billing")] billing: &Billing,
        #[needs("requestId")] _request_id: &FinishingId,
    ) -> Json<Created> {
        billing.charge(&order);
        Json(Created { ok: true })
    }
}

/// The request id behind a lock, as the database recipe's `Transaction` holds its
/// transaction: the handler locks it once, and its finish takes the value out of the lock
/// (`into_inner`), as the recipe's commit does.
pub struct LockedId(pub tokio::sync::Mutex<String>);

impl Finish for LockedId {
    async fn finish(self, _outcome: &Outcome) -> Result<(), HttpError> {
        std::hint::black_box(self.0.into_inner());
        Ok(())
    }
}

/// The request id header, or "-", behind a lock, as a value that finishes.
#[step(provides = "requestId", finish)]
fn locked_request_id(headers: &HeaderMap) -> LockedId {
    LockedId(tokio::sync::Mutex::new(crate::request_id(headers)))
}

/// `POST /orders`, locking the request id once, as a handler locks `tx`.
pub struct LockingOrders;

#[route("/orders")]
impl LockingOrders {
    #[post("/")]
    async fn create(
        #[body] order: Order,
        #[needs("billing")] billing: &Billing,
        #[needs("requestId")] request_id: &LockedId,
    ) -> Json<Created> {
        std::hint::black_box(&*request_id.0.lock().await);
        billing.charge(&order);
        Json(Created { ok: true })
    }
}

/// `GET /health`.
pub struct Health;

#[route("/health")]
impl Health {
    #[get("/")]
    async fn check() -> &'static str {
        "ok"
    }
}

/// green-tea-inproc's app, its request id finishing (a finish that does nothing).
pub fn finishing_app() -> App {
    App::builder()
        .provider(billing_api::provider())
        .provider(billing::provider())
        .step(finishing_request_id::step())
        .routes(FinishingOrders::routes())
        .routes(Health::routes())
        .build()
        .expect("a valid graph")
}

/// green-tea-inproc's app, its request id finishing and locked once by the handler.
pub fn locking_app() -> App {
    App::builder()
        .provider(billing_api::provider())
        .provider(billing::provider())
        .step(locked_request_id::step())
        .routes(LockingOrders::routes())
        .routes(Health::routes())
        .build()
        .expect("a valid graph")
}
