//! The green-tea app wired by hand (`ProviderFn`, `StepFn`, `Route::post`): the same graph and
//! routes as the macro form in `green_tea_app`, written with the builder's plain-Rust
//! equivalents. Built here so that green-tea-wired-server and green-tea-wired-inproc serve the
//! same app; measured beside the macro form, which is what users write.

use std::sync::Arc;

use green_tea::ProviderFn;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::steps::StepFn;
use green_tea::{App, HttpError, Json};

use crate::{Billing, BillingApi, Created, Order, request_id};

/// The app, built but not started (the caller runs `app.start()` on its runtime).
pub fn app() -> App {
    App::builder()
        .provider(ProviderFn::new("billingApi", |_| async {
            Ok(BillingApi::default())
        }))
        .provider(
            ProviderFn::new("billing", |needs| async move {
                Ok(Billing {
                    api: needs.get::<BillingApi>(0)?,
                })
            })
            .needs::<BillingApi>("billingApi"),
        )
        .step(StepFn::new("requestId", |parts, _| {
            Ok::<_, HttpError>(request_id(&parts.headers))
        }))
        .route(
            Route::post("/orders", |mut request: RequestContext| async move {
                let billing: Arc<Billing> = request.need(0)?;
                let _request_id: Arc<String> = request.need(1)?;
                let order: Order = request.json().await?;
                billing.charge(&order);
                Ok::<_, HttpError>(Json(Created { ok: true }))
            })
            .needs::<Billing>("billing")
            .needs::<String>("requestId"),
        )
        .route(Route::get("/health", |_: RequestContext| async { "ok" }))
        .build()
        .expect("a valid graph")
}
