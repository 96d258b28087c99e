//! actix-web 4: web::Data (the app is `bench_servers::actix_app`).

use std::sync::Arc;

use actix_web::{HttpServer, web};
use bench_servers::{Billing, BillingApi, actix_app, settings};

fn main() -> std::io::Result<()> {
    let (port, workers) = settings();
    let billing = web::Data::new(Billing {
        api: Arc::new(BillingApi::default()),
    });
    actix_web::rt::System::new().block_on(
        HttpServer::new(move || actix_app::app(billing.clone()))
            .workers(workers)
            .bind(("127.0.0.1", port))?
            .run(),
    )
}
