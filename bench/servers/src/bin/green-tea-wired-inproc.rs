//! green-tea wired by hand, in process: `green-tea-wired-inproc N` is green-tea-inproc with the
//! app of green-tea-wired-server (`ProviderFn`, `StepFn`, `Route::post`), driven the same way.

use bench_servers::{
    answer_in_process, current_thread_runtime, green_tea_wired_app, request_count,
};

fn main() {
    let count = request_count();
    current_thread_runtime().block_on(async move {
        let app = green_tea_wired_app::app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
}
