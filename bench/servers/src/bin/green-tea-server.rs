//! green-tea: one step, two providers (`billing` needs `billingApi`), one JSON route (the app is
//! `bench_servers::green_tea_app`).

use bench_servers::{green_tea_app, runtime, settings};

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = green_tea_app::app();
        app.start().await.expect("providers build");
        app.serve(("127.0.0.1", port)).await.expect("serve");
    });
}
