//! The actix-web 4 app: web::Data. Built here so that actix-server (one `App` per worker) and
//! actix-inproc (one `App` under `actix_web::test`) serve the same routes.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{App, HttpRequest, HttpResponse, web};

use crate::{Billing, Created, Order};

async fn create(
    billing: web::Data<Billing>,
    request: HttpRequest,
    order: web::Json<Order>,
) -> HttpResponse {
    let _request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-")
        .to_owned();
    billing.charge(&order);
    HttpResponse::Ok().json(Created { ok: true })
}

/// The app over the shared `billing`.
pub fn app(
    billing: web::Data<Billing>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(billing)
        .route("/orders", web::post().to(create))
        .route("/health", web::get().to(|| async { "ok" }))
}
