//! The green-tea app as the README teaches it: `#[provider]`, `#[step]`, `#[route]` with
//! `#[body]` and `#[needs]`, registered explicitly. Built here so that green-tea-server and
//! green-tea-inproc serve the same app. This is what users write, so it is what the benchmarks
//! and the CI instruction check measure first; `green_tea_wired_app` is the same app wired by
//! hand, measured beside it. All of the macro form lives in this one module.

use green_tea::prelude::*;
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

/// The request id header, or "-".
#[step(provides = "requestId")]
fn request_id(headers: &HeaderMap) -> String {
    crate::request_id(headers)
}

/// `POST /orders`.
pub struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/")]
    async fn create(
        #[body] order: Order,
        #[needs("billing")] billing: &Billing,
        #[needs("requestId")] _request_id: &String,
    ) -> Json<Created> {
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

/// The app, built but not started (the caller runs `app.start()` on its runtime).
pub fn app() -> App {
    builder()
        .routes(Orders::routes())
        .routes(Health::routes())
        .build()
        .expect("a valid graph")
}

/// The app's providers and step, without routes (green-tea-layered-inproc adds them under
/// layers).
pub fn builder() -> AppBuilder {
    App::builder()
        .provider(billing_api::provider())
        .provider(billing::provider())
        .step(request_id::step())
}

/// The app with layers that do nothing: one app layer and one route layer on `POST /orders`,
/// tower's `MapRequestLayer` with the identity (green-tea-layered-inproc and
/// green-tea-layered-metrics-inproc, so that what is measured is what a layer costs
/// green-tea, not the layer's own work).
pub fn layered_app() -> App {
    let identity = || tower::util::MapRequestLayer::new(|request: http::Request<_>| request);
    builder()
        .layer(identity())
        .routes(
            Orders::routes()
                .into_iter()
                .map(|route| route.layer(identity())),
        )
        .routes(Health::routes())
        .build()
        .expect("a valid graph")
}
