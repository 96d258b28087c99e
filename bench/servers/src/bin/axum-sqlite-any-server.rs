//! The shop's write route on SQLite in axum 0.8 + sqlx by hand, with the database calls the
//! recipe makes: sqlx's `Any` pool, `pool.begin()`, the insert, `commit()`, 201 JSON (the
//! router is `bench_servers::axum_sqlite_app::any_router`).
//! `DATABASE_URL` names a fresh file (issue 27; see docs/benchmarks.md, "A write on SQLite").

use bench_servers::{axum_sqlite_app, runtime, settings};

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = axum_sqlite_app::any_router().await;
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
