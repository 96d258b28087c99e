//! hyper in process: `hyper-inproc N` calls hyper-server's handler directly N times with
//! `POST /orders` (a `Full<Bytes>` body), one after another on a current-thread runtime, and
//! exits non-zero if any answer is not 200. No hyper connection at all: this is the handler's
//! cost (matchit, JSON both ways, one response).

use std::sync::Arc;

use bench_servers::hyper_app::{handle, router};
use bench_servers::{Billing, BillingApi, current_thread_runtime, order_request, request_count};
use http_body_util::BodyExt;

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let router = router();
        let billing = Arc::new(Billing {
            api: Arc::new(BillingApi::default()),
        });
        for i in 0..count {
            let response = handle(Arc::clone(&router), Arc::clone(&billing), order_request(i))
                .await
                .unwrap_or_else(|never| match never {});
            let status = response.status();
            response.into_body().collect().await.expect("a body");
            assert_eq!(status, 200, "request {i}");
        }
    });
}
