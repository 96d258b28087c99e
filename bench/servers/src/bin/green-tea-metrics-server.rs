//! green-tea-server with green-tea's `metrics` feature and metrics-exporter-prometheus's
//! recorder installed before the app is built. Not in the default lists; see
//! docs/benchmarks.md, "Metrics".

use bench_servers::{green_tea_app, install_prometheus, runtime, settings};

fn main() {
    let (port, workers) = settings();
    let _handle = install_prometheus();
    runtime(workers).block_on(async move {
        let app = green_tea_app::app();
        app.start().await.expect("providers build");
        app.serve(("127.0.0.1", port)).await.expect("serve");
    });
}
