//! green-tea wired by hand: `ProviderFn`, `StepFn`, `Route::post`, the same app as
//! green-tea-server without the macros (the app is `bench_servers::green_tea_wired_app`).

use bench_servers::{green_tea_wired_app, runtime, settings};

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = green_tea_wired_app::app();
        app.start().await.expect("providers build");
        app.serve(("127.0.0.1", port)).await.expect("serve");
    });
}
