//! green-tea-finish-inproc with the lock a database handler takes: `green-tea-finish-lock-inproc
//! N` answers N `POST /orders`, its finishing `requestId` value behind a `tokio::sync::Mutex`
//! that the handler locks once (as it locks the database recipe's `tx`) and that its finish
//! takes the value out of (issue 27). Not in the default lists; see docs/benchmarks.md, "Steps
//! that finish".

use bench_servers::{
    answer_in_process, current_thread_runtime, green_tea_finish_app, request_count,
};

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let app = green_tea_finish_app::locking_app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
}
