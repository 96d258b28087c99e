//! green-tea-layered-inproc with green-tea's `metrics` feature and metrics-exporter-prometheus's
//! recorder installed: what a request through layers pays for its metrics. Not in the default
//! lists; see docs/benchmarks.md, "Metrics".

use bench_servers::{
    answer_in_process, current_thread_runtime, green_tea_app, install_prometheus, request_count,
};

fn main() {
    let count = request_count();
    let handle = install_prometheus();
    current_thread_runtime().block_on(async move {
        let app = green_tea_app::layered_app();
        app.start().await.expect("providers build");
        answer_in_process(app, count).await;
    });
    // Measured outside the layers, labelled with the route the dispatch inside took.
    assert!(
        handle
            .render()
            .contains(r#"http_server_request_duration_count{http_request_method="POST",http_route="/orders",http_response_status_code="200"}"#)
    );
}
