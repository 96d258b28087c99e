//! green-tea: one step, two providers (`billing` needs `billingApi`), one JSON route.

use std::sync::Arc;

use bench_servers::{Billing, BillingApi, Created, Order, request_id, runtime, settings};
use green_tea::http::{App, HttpError, Json, RequestContext, Route, StepFn};
use green_tea::ProviderFn;

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = App::builder()
            .provider(ProviderFn::new("billingApi", |_| async { Ok(BillingApi::default()) }))
            .provider(
                ProviderFn::new("billing", |needs| async move {
                    Ok(Billing { api: needs.get::<BillingApi>(0)? })
                })
                .needs::<BillingApi>("billingApi"),
            )
            .step(StepFn::new("requestId", |parts, _| Ok::<_, HttpError>(request_id(&parts.headers))))
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
            .expect("a valid graph");
        app.start().await.expect("providers build");
        app.serve(("127.0.0.1", port)).await.expect("serve");
    });
}
