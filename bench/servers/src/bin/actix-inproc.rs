//! actix-web in process: `actix-inproc N` answers N `POST /orders` with the same app as
//! actix-server but no socket (`actix_web::test::init_service` and `call_service`), one after
//! another on actix's single-threaded runtime, and exits non-zero if any answer is not 200.
//!
//! The request is actix's own `TestRequest` (actix does not take an `http::Request`), with the
//! same method, path, headers and body as the other drivers'. Building one costs more than
//! building their `http::Request` (it carries an app config and a resource map), and the
//! in-process figures include it.

use std::sync::Arc;

use actix_web::http::header::{CONTENT_TYPE, HeaderName};
use actix_web::{test, web};
use bench_servers::{Billing, BillingApi, ORDER_JSON, actix_app, request_count};

fn main() {
    let count = request_count();
    let billing = web::Data::new(Billing {
        api: Arc::new(BillingApi::default()),
    });
    actix_web::rt::System::new().block_on(async move {
        let app = test::init_service(actix_app::app(billing)).await;
        for i in 0..count {
            let request = test::TestRequest::post()
                .uri("/orders")
                .insert_header((CONTENT_TYPE, "application/json"))
                .insert_header((HeaderName::from_static("x-request-id"), i))
                .set_payload(ORDER_JSON)
                .to_request();
            let response = test::call_service(&app, request).await;
            let status = response.status();
            test::read_body(response).await;
            assert_eq!(status, 200, "request {i}");
        }
    });
}
