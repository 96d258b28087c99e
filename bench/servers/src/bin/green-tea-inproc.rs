//! green-tea in process: `green-tea-inproc N` answers N `POST /orders` with the same app as
//! green-tea-server but no socket, one after another on a current-thread runtime, and exits
//! non-zero if any answer is not 200. Under callgrind, two runs of different N give the cost of
//! one request without hyper's connection, parsing and I/O.
//!
//! The app is driven as a `tower::Service` (`oneshot`), the way a host axum router or a tower
//! layer would call it, rather than through `App::handle`: that is the in-process entry the
//! axum driver uses too. It boxes the body into axum-core's `Body` and the future once each.

use bench_servers::{current_thread_runtime, green_tea_app, order_request, request_count};
use http_body_util::BodyExt;
use tower::ServiceExt;

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let mut app = green_tea_app::app();
        app.start().await.expect("providers build");
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
