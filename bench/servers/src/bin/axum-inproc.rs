//! axum in process: `axum-inproc N` answers N `POST /orders` with the same router as axum-server
//! but no socket (`tower::ServiceExt::oneshot`), one after another on a current-thread runtime,
//! and exits non-zero if any answer is not 200.

use bench_servers::{answer_in_process, axum_app, current_thread_runtime, request_count};

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(answer_in_process(axum_app::router(), count));
}
