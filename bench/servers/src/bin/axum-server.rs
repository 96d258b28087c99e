//! axum 0.8: State + FromRef, an extractor for the step (the router is
//! `bench_servers::axum_app`).

use bench_servers::{axum_app, runtime, settings};

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = axum_app::router();
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind");
        // Exit cleanly on Ctrl-C, so a profiler (valgrind) can write its output.
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                tokio::signal::ctrl_c().await.expect("a signal handler")
            })
            .await
            .expect("serve");
    });
}
