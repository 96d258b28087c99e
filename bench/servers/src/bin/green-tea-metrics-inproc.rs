//! green-tea-inproc with green-tea's `metrics` feature and a recorder installed:
//! `green-tea-metrics-inproc N` answers N `POST /orders` as green-tea-inproc does, with
//! metrics-exporter-prometheus's recorder installed (buckets set, as an application sets them)
//! before the app is built. Not in the default lists; see docs/benchmarks.md, "Metrics".

use bench_servers::{
    answer_in_process, current_thread_runtime, green_tea_app, install_prometheus, request_count,
};

fn main() {
    let count = request_count();
    let handle = install_prometheus();
    current_thread_runtime().block_on(async move {
        let app = green_tea_app::app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
    // The requests were recorded (and the exporter keeps working).
    assert!(
        handle
            .render()
            .contains("http_server_request_duration_count")
    );
}
