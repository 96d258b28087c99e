//! axum in process: `axum-inproc N` answers N `POST /orders` with the same router as axum-server
//! but no socket (`tower::ServiceExt::oneshot`), one after another on a current-thread runtime,
//! and exits non-zero if any answer is not 200.

use bench_servers::{axum_app, current_thread_runtime, order_request, request_count};
use http_body_util::BodyExt;
use tower::ServiceExt;

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let mut app = axum_app::router();
        for i in 0..count {
            let response = (&mut app)
                .oneshot(order_request(i))
                .await
                .unwrap_or_else(|never| match never {});
            let status = response.status();
            response.into_body().collect().await.expect("a body");
            assert_eq!(status, 200, "request {i}");
        }
    });
}
