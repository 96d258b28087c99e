//! green-tea as users write it: `#[provider]`s `billingApi` and `billing`, the `#[step]`
//! `requestId`, a `#[route]` block (the app is `bench_servers::green_tea_app`).

use bench_servers::{green_tea_app, runtime, settings};

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = green_tea_app::app();
        app.start().await.expect("providers build");
        app.serve(("127.0.0.1", port)).await.expect("serve");
    });
}
