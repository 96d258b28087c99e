//! The pool on a real database, each scenario on SQLite and on PostgreSQL: 200 concurrent
//! writes over a 10-connection pool each commit exactly once; an exhausted pool answers 503
//! JSON after its acquire timeout rather than hanging; migrations run at `start()`, once;
//! the health ping follows the pool. And SQLite's connections are set as a deployment sets
//! them (WAL, the busy timeout).
#![cfg(feature = "sqlx")]

#[path = "support/postgres.rs"]
mod postgres;
#[macro_use]
#[path = "support/database.rs"]
mod database;

use std::collections::BTreeSet;
use std::sync::Arc;

use database::{Hold, TestDatabase, bodies, client, notes_app, send, serve, within};
use green_tea_core::CheckStatus;
use green_tea_recipes::database::{Database, sqlx};
use http::Method;
use serde_json::json;

on_both!(
    concurrent_writes_over_a_small_pool_each_commit_once,
    an_exhausted_pool_answers_503_after_the_acquire_timeout,
    migrations_run_at_start_and_once,
    the_ping_follows_the_pool,
);

/// 200 writes at once over 10 connections: every request is answered 201 (the acquire and
/// busy timeouts are generous: waiting is expected, failing is not), every id is distinct,
/// and every body is in the table exactly once.
async fn concurrent_writes_over_a_small_pool_each_commit_once(db: TestDatabase) {
    let env = [
        ("DATABASE_MAX_CONNECTIONS", "10"),
        ("DATABASE_ACQUIRE_TIMEOUT", "60s"),
        ("DATABASE_BUSY_TIMEOUT", "60s"),
    ];
    let served = serve(notes_app(&db, &env, Arc::default())).await;
    let client = client();
    let url = served.url("/notes");
    let writes: Vec<_> = (0..200)
        .map(|i| {
            let client = client.clone();
            let url = url.clone();
            tokio::spawn(
                async move { send(&client, Method::POST, &url, &format!("note-{i}")).await },
            )
        })
        .collect();
    let mut ids = BTreeSet::new();
    for write in writes {
        let answer = within("a write", write).await.expect("the write's task");
        assert_eq!(answer.status, 201, "{answer:?}");
        assert!(ids.insert(answer.json["id"].as_i64().expect("an id")));
    }
    let written = bodies(&served.app).await;
    assert_eq!(written.len(), 200, "each once");
    let unique: BTreeSet<_> = written.iter().cloned().collect();
    let expected: BTreeSet<_> = (0..200).map(|i| format!("note-{i}")).collect();
    assert_eq!(unique, expected);
    let pool = served.app.get::<Database>("database").await.unwrap();
    assert!(pool.pool().size() <= 10, "the pool stayed bounded");
    served.close().await;
}

/// One connection, held by a request whose handler waits: the next request waits for the
/// pool's acquire timeout and is answered 503 JSON with `Retry-After`, its handler never run.
/// Released, the first commits, and the pool serves again.
async fn an_exhausted_pool_answers_503_after_the_acquire_timeout(db: TestDatabase) {
    let env = [
        ("DATABASE_MAX_CONNECTIONS", "1"),
        ("DATABASE_ACQUIRE_TIMEOUT", "300ms"),
    ];
    let hold = Arc::new(Hold::default());
    let served = serve(notes_app(&db, &env, Arc::clone(&hold))).await;
    let client = client();
    let held = {
        let client = client.clone();
        let url = served.url("/notes/held");
        tokio::spawn(async move { send(&client, Method::POST, &url, "held").await })
    };
    within("the held write", hold.written.notified()).await;
    let refused = send(&client, Method::POST, &served.url("/notes"), "refused").await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(
        refused.json,
        json!({ "error": "the database is busy; try again" })
    );
    assert_eq!(refused.retry_after.as_deref(), Some("1"));
    hold.release.notify_one();
    let held = within("the held answer", held).await.unwrap();
    assert_eq!(held.status, 201, "{held:?}");
    let after = send(&client, Method::POST, &served.url("/notes"), "after").await;
    assert_eq!(after.status, 201, "{after:?}");
    assert_eq!(bodies(&served.app).await, ["held", "after"]);
    served.close().await;
}

/// `start()` applies the migrations (the table is there before the first request); a second
/// app on the same database finds them applied, skips them, and sees the first one's rows.
async fn migrations_run_at_start_and_once(db: TestDatabase) {
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let database = served.app.get::<Database>("database").await.unwrap();
    let applied: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version")
            .fetch_all(database.pool())
            .await
            .unwrap();
    assert_eq!(applied, [1, 2]);
    let client = client();
    let created = send(&client, Method::POST, &served.url("/notes"), "kept").await;
    assert_eq!(created.status, 201);
    served.close().await;

    let again = serve(notes_app(&db, &[], Arc::default())).await;
    assert_eq!(bodies(&again.app).await, ["kept"]);
    again.close().await;
}

/// `Database::ping` (`SELECT 1`) is up while the pool serves, and so is the app's health
/// (the async check of `database`) and readiness; down once the pool is closed.
async fn the_ping_follows_the_pool(db: TestDatabase) {
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let database = served.app.get::<Database>("database").await.unwrap();
    let up = within("the ping", database.ping()).await;
    assert_eq!(up.status, CheckStatus::Up, "{up:?}");
    assert!(
        up.detail
            .as_deref()
            .unwrap()
            .starts_with(&db.backend.to_string()),
        "{up:?}"
    );
    let health = within("health()", served.app.health()).await;
    assert!(health.ready, "{:?}", health.reasons);
    let check = health
        .checks
        .iter()
        .find(|c| c.key == "database")
        .and_then(|c| c.check.clone())
        .expect("the database's check");
    assert_eq!(check.status, CheckStatus::Up, "{check:?}");
    let ready = send(&client(), Method::GET, &served.url("/readyz"), "").await;
    assert_eq!(ready.status, 200, "{ready:?}");
    served.close().await;
    let down = within("the ping", database.ping()).await;
    assert_eq!(down.status, CheckStatus::Down, "{down:?}");
}

/// Every SQLite connection of the pool is in WAL mode with the configured busy timeout (and
/// foreign keys on, as sqlx sets them).
#[tokio::test]
async fn sqlite_connections_use_wal_and_the_busy_timeout() {
    let db = TestDatabase::sqlite();
    let env = [("DATABASE_BUSY_TIMEOUT", "2500ms")];
    let served = serve(notes_app(&db, &env, Arc::default())).await;
    let database = served.app.get::<Database>("database").await.unwrap();
    let mut connection = database.pool().acquire().await.unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut *connection)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let busy: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
        .fetch_one(&mut *connection)
        .await
        .unwrap();
    assert_eq!(busy, 2500);
    let foreign_keys: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(&mut *connection)
        .await
        .unwrap();
    assert_eq!(foreign_keys, 1);
    drop(connection);
    served.close().await;
}

/// A URL of neither database, an empty pool and a zero acquire timeout are refused at
/// `build()`, the URL itself never shown.
#[test]
fn bad_settings_are_refused_at_build() {
    use green_tea_core::settings::{Settings, Sources};
    use green_tea_http::App;
    use green_tea_recipes::database::{DatabasePool, DatabaseSettings, Migrations};
    for (name, value, says) in [
        (
            "DATABASE_URL",
            "mysql://root:s3cr3t@db/shop",
            "the database URL's scheme is `mysql:`",
        ),
        ("DATABASE_MAX_CONNECTIONS", "0", "`max_connections` is zero"),
        (
            "DATABASE_ACQUIRE_TIMEOUT",
            "0s",
            "`acquire_timeout` is zero",
        ),
    ] {
        let err = App::builder()
            .settings(Sources::from_env_map([(name, value)]))
            .provider(DatabaseSettings::provider())
            .provider(DatabasePool::new(Migrations::new()))
            .build()
            .expect_err(name);
        let text = err.to_string();
        assert!(text.contains(says), "{name}: {text}");
        assert!(!text.contains("s3cr3t"), "{text}");
    }
}

/// SQLite has one writer: while a request's transaction holds the write lock (its handler
/// waits), another write waits for the busy timeout at its `BEGIN IMMEDIATE`, then is answered
/// 503 JSON, its handler never run. Released, the first commits and the next write goes
/// through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_writer_waiting_past_the_busy_timeout_answers_503() {
    let db = TestDatabase::sqlite();
    let env = [("DATABASE_BUSY_TIMEOUT", "200ms")];
    let hold = Arc::new(Hold::default());
    let served = serve(notes_app(&db, &env, Arc::clone(&hold))).await;
    let client = client();
    let held = {
        let client = client.clone();
        let url = served.url("/notes/held");
        tokio::spawn(async move { send(&client, Method::POST, &url, "held").await })
    };
    within("the held write", hold.written.notified()).await;
    let refused = send(&client, Method::POST, &served.url("/notes"), "refused").await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(
        refused.json,
        json!({ "error": "the database is busy; try again" })
    );
    assert_eq!(refused.retry_after.as_deref(), Some("1"));
    hold.release.notify_one();
    let held = within("the held answer", held).await.unwrap();
    assert_eq!(held.status, 201, "{held:?}");
    let after = send(&client, Method::POST, &served.url("/notes"), "after").await;
    assert_eq!(after.status, 201, "{after:?}");
    assert_eq!(bodies(&served.app).await, ["held", "after"]);
    served.close().await;
}
