//! The shop's write route on SQLite in axum 0.8 + sqlx by hand, with sqlx's SQLite pool
//! (`SqlitePool`) and the recipe's `BEGIN IMMEDIATE` (`pool.begin_with`), the insert,
//! `commit()`, 201 JSON (the router is `bench_servers::axum_sqlite_app::immediate_router`):
//! beside axum-sqlite-server and axum-sqlite-any-server, it tells the begin's cost apart from
//! the `Any` driver's. `DATABASE_URL` names a fresh file (issue 27; see docs/benchmarks.md, "A
//! write on SQLite").

use bench_servers::{axum_sqlite_app, runtime, settings};

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = axum_sqlite_app::immediate_router().await;
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
