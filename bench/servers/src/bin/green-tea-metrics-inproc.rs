//! green-tea-inproc with green-tea's `metrics` feature and a recorder installed:
//! `green-tea-metrics-inproc N` answers N `POST /orders` as green-tea-inproc does, with
//! metrics-exporter-prometheus's recorder installed (buckets set, as an application sets them)
//! before the app is built. Not in the default lists; see docs/benchmarks.md, "Metrics".

use bench_servers::{answer_in_process, current_thread_runtime, green_tea_app, request_count};
use metrics_exporter_prometheus::PrometheusBuilder;

fn main() {
    let count = request_count();
    let recorder = PrometheusBuilder::new()
        .set_buckets(&[
            0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ])
        .expect("buckets")
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).expect("the only recorder");
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
