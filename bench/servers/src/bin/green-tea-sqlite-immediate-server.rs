//! The shop's write route on SQLite in green-tea, as users write it: the database recipe's
//! pool and `tx` step (`BEGIN IMMEDIATE`), a `#[route]` handler inserting through `tx.lock().await` (the app is
//! `bench_servers::green_tea_sqlite_app`). `DATABASE_URL` names a fresh file (issue 27; see
//! docs/benchmarks.md, "A write on SQLite").

use bench_servers::{green_tea_sqlite_app, runtime, settings};

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let app = green_tea_sqlite_app::app(true);
        app.start().await.expect("the pool and its migrations");
        green_tea_sqlite_app::check_settings(&app).await;
        app.serve(("127.0.0.1", port)).await.expect("serve");
    });
}
