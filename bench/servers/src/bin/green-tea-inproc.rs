//! green-tea in process: `green-tea-inproc N` answers N `POST /orders` with the same app as
//! green-tea-server (the macro form) but no socket, one after another on a current-thread
//! runtime, and exits non-zero if any answer is not 200. Under callgrind, two runs of different
//! N give the cost of one request without hyper's connection, parsing and I/O.
//!
//! The app is driven as a `tower::Service` (`oneshot`), the way a host axum router or a tower
//! layer would call it, rather than through `App::handle`: that is the in-process entry the
//! axum driver uses too. It boxes the body into axum-core's `Body` and the future once each.

use bench_servers::{answer_in_process, current_thread_runtime, green_tea_app, request_count};

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let app = green_tea_app::app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
}
