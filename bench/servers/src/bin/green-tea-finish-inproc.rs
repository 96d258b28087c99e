//! green-tea-inproc's app with a request id that finishes: `green-tea-finish-inproc N` answers
//! N `POST /orders` as green-tea-inproc does, its `requestId` step marked `finish` and its
//! value's finish doing nothing, so that what differs is the finishing machinery (issue 27).
//! Not in the default lists; see docs/benchmarks.md, "Steps that finish".

use bench_servers::{
    answer_in_process, current_thread_runtime, green_tea_finish_app, request_count,
};

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let app = green_tea_finish_app::finishing_app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
}
