//! green-tea-inproc built with green-tea's `metrics` feature and no recorder installed:
//! `green-tea-unrecorded-inproc N` answers N `POST /orders` as green-tea-inproc does. What the
//! feature costs an application that has not installed a recorder. Not in the default lists;
//! see docs/benchmarks.md, "Metrics".

use bench_servers::{answer_in_process, current_thread_runtime, green_tea_app, request_count};

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let app = green_tea_app::app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
}
