//! actix-web 4: web::Data.

use std::sync::Arc;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use bench_servers::{Billing, BillingApi, Created, Order, settings};

async fn create(billing: web::Data<Billing>, request: HttpRequest, order: web::Json<Order>) -> HttpResponse {
    let _request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-")
        .to_owned();
    billing.charge(&order);
    HttpResponse::Ok().json(Created { ok: true })
}

fn main() -> std::io::Result<()> {
    let (port, workers) = settings();
    let billing = web::Data::new(Billing { api: Arc::new(BillingApi::default()) });
    actix_web::rt::System::new().block_on(
        HttpServer::new(move || {
            App::new()
                .app_data(billing.clone())
                .route("/orders", web::post().to(create))
                .route("/health", web::get().to(|| async { "ok" }))
        })
        .workers(workers)
        .bind(("127.0.0.1", port))?
        .run(),
    )
}
