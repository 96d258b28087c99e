//! The pool on a real database, each scenario on SQLite and on PostgreSQL: 200 concurrent
//! writes over a 10-connection pool each commit exactly once; an exhausted pool answers 503
//! JSON after its acquire timeout rather than hanging; migrations run at `start()`, once;
//! the health ping follows the pool; a begin dropped at any of its awaits gives its connection
//! back out of any transaction. And SQLite's connections are set as a deployment sets
//! them (WAL, the busy timeout).
#![cfg(feature = "sqlx")]

use crate::database;

use std::collections::BTreeSet;
use std::sync::Arc;

use database::{Answer, Hold, TestDatabase, bodies, client, notes_app, send, serve, within};
use green_tea_core::CheckStatus;
use green_tea_recipes::database::{Database, sqlx};
use http::Method;
use serde_json::json;

on_both!(
    concurrent_writes_over_a_small_pool_each_commit_once,
    an_exhausted_pool_answers_503_after_the_acquire_timeout,
    migrations_run_at_start_and_once,
    the_ping_follows_the_pool,
    a_begin_dropped_at_any_of_its_awaits_gives_its_connection_back_clean,
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
    // Both begins wait for the one connection, and are refused at the acquire timeout.
    for path in ["/notes", "/notes/immediate"] {
        assert_busy(
            &send(&client, Method::POST, &served.url(path), "refused").await,
            path,
        );
    }
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

/// `Database::begin` and `begin_immediate`, each polled 1, 2, ... times (time between polls for
/// the connection's thread to move on) and then dropped, as a request dropped by its client
/// drops them: so each is dropped at each of its awaits in turn (taking the connection, the
/// begin statement's trip to the connection's thread, and on SQLite the check that follows a
/// begin statement of one's own, which sqlx 0.8 cannot cancel cleanly). Over a one-connection
/// pool, the connection taken next is out of any transaction every time, and a transaction
/// on it commits.
async fn a_begin_dropped_at_any_of_its_awaits_gives_its_connection_back_clean(db: TestDatabase) {
    use sqlx::Connection;
    let env = [
        ("DATABASE_MAX_CONNECTIONS", "1"),
        ("DATABASE_BUSY_TIMEOUT", "1s"),
    ];
    let served = serve(notes_app(&db, &env, Arc::default())).await;
    let database = served.app.get::<Database>("database").await.unwrap();
    for immediate in [false, true] {
        for polls in 1..=6 {
            let begin = async {
                if immediate {
                    database.begin_immediate().await
                } else {
                    database.begin().await
                }
            };
            let mut begin = Box::pin(begin);
            for _ in 0..polls {
                let polled =
                    std::future::poll_fn(|cx| std::task::Poll::Ready(begin.as_mut().poll(cx)))
                        .await;
                if polled.is_ready() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            drop(begin);
            let connection = within("the connection back", database.pool().acquire())
                .await
                .expect("the connection");
            assert!(
                !connection.is_in_transaction(),
                "immediate: {immediate}, dropped after {polls} polls: still in a transaction"
            );
            drop(connection);
            let mut transaction = within("a begin", database.begin_immediate())
                .await
                .expect("a begin");
            sqlx::query("INSERT INTO notes (body) VALUES ($1)")
                .bind(format!("{immediate}-{polls}"))
                .execute(&mut *transaction)
                .await
                .expect("the insert");
            transaction.commit().await.expect("the commit");
        }
    }
    assert_eq!(bodies(&served.app).await.len(), 12);
    served.close().await;
}

/// Every SQLite connection of the pool is in WAL mode with the configured busy timeout and
/// `synchronous` (and foreign keys on, as sqlx sets them); `synchronous` is FULL unless set.
#[tokio::test]
async fn sqlite_connections_use_wal_and_the_busy_timeout() {
    let db = TestDatabase::sqlite();
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let database = served.app.get::<Database>("database").await.unwrap();
    let mut connection = database.pool().acquire().await.unwrap();
    let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(&mut *connection)
        .await
        .unwrap();
    assert_eq!(synchronous, 2, "FULL, SQLite's default");
    drop(connection);
    served.close().await;

    let env = [
        ("DATABASE_BUSY_TIMEOUT", "2500ms"),
        ("DATABASE_SYNCHRONOUS", "normal"),
    ];
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
    // Every connection, not only the first: the pool opens a second one while this is held.
    let mut second = database.pool().acquire().await.unwrap();
    for connection in [&mut connection, &mut second] {
        let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&mut **connection)
            .await
            .unwrap();
        assert_eq!(synchronous, 1, "NORMAL");
    }
    drop((connection, second));
    served.close().await;
}

/// A URL of neither database, an empty pool, a zero acquire timeout and a zero build timeout
/// are refused at `build()`, the URL itself never shown.
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
        ("DATABASE_BUILD_TIMEOUT", "0s", "`build_timeout` is zero"),
        (
            "DATABASE_SYNCHRONOUS",
            "fast",
            "unknown variant `fast`, expected one of `off`, `normal`, `full`, `extra`",
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
    // Refused at the insert (`BEGIN` takes no lock), and at the begin (`BEGIN IMMEDIATE`).
    for path in ["/notes", "/notes/immediate"] {
        assert_busy(
            &send(&client, Method::POST, &served.url(path), "refused").await,
            path,
        );
    }
    hold.release.notify_one();
    let held = within("the held answer", held).await.unwrap();
    assert_eq!(held.status, 201, "{held:?}");
    let after = send(&client, Method::POST, &served.url("/notes"), "after").await;
    assert_eq!(after.status, 201, "{after:?}");
    assert_eq!(bodies(&served.app).await, ["held", "after"]);
    served.close().await;
}

/// SQLite, with `BEGIN` (the default): a transaction that read before another committed a
/// write is refused at its own write (`SQLITE_BUSY_SNAPSHOT`, at once: the busy timeout does
/// not wait it out), and `http_error` answers that 503 with the busy message. Begun with
/// `begin_immediate`, the same read-then-write goes through: the second writer waits at its
/// begin for the first to commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_read_then_write_overtaken_answers_503_and_immediate_waits_instead() {
    use green_tea_recipes::database::{http_error, is_unavailable};
    let db = TestDatabase::sqlite();
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let database = served.app.get::<Database>("database").await.unwrap();
    let count = "SELECT COUNT(*) FROM notes";
    let insert = "INSERT INTO notes (body) VALUES ($1)";

    let mut reader = database.begin().await.unwrap();
    let seen: i64 = sqlx::query_scalar(count)
        .fetch_one(&mut *reader)
        .await
        .unwrap();
    assert_eq!(seen, 0);
    let mut writer = database.begin().await.unwrap();
    sqlx::query(insert)
        .bind("in between")
        .execute(&mut *writer)
        .await
        .unwrap();
    writer.commit().await.unwrap();
    let overtaken = sqlx::query(insert)
        .bind("stale")
        .execute(&mut *reader)
        .await
        .expect_err("the snapshot is stale");
    assert!(is_unavailable(&overtaken), "{overtaken:?}");
    let answer = http_error(overtaken);
    assert_eq!(answer.status(), 503);
    assert_eq!(answer.message(), "the database is busy; try again");
    drop(reader);

    let mut first = database.begin_immediate().await.unwrap();
    let seen: i64 = sqlx::query_scalar(count)
        .fetch_one(&mut *first)
        .await
        .unwrap();
    let second = tokio::spawn({
        let database = database.clone();
        async move {
            let mut second = database.begin_immediate().await?;
            sqlx::query(insert)
                .bind("second")
                .execute(&mut *second)
                .await?;
            second.commit().await
        }
    });
    sqlx::query(insert)
        .bind(format!("first, after {seen}"))
        .execute(&mut *first)
        .await
        .expect("the write lock was taken at the begin");
    first.commit().await.unwrap();
    within("the second writer", second)
        .await
        .unwrap()
        .expect("it waited for the first");
    assert_eq!(
        bodies(&served.app).await,
        ["in between", "first, after 1", "second"]
    );
    served.close().await;
}

/// The answer a write gets when the database is busy: 503, the busy message as JSON, and
/// `Retry-After: 1`.
#[track_caller]
fn assert_busy(refused: &Answer, path: &str) {
    assert_eq!(refused.status, 503, "{path}: {refused:?}");
    assert_eq!(
        refused.json,
        json!({ "error": "the database is busy; try again" }),
        "{path}"
    );
    assert_eq!(refused.retry_after.as_deref(), Some("1"), "{path}");
}

/// `DATABASE_BUILD_TIMEOUT` is the pool's build timeout, in place of the app's: a migration
/// that waits on another instance's write lock (the busy timeout far longer) fails the start
/// by it, naming the pool, rather than hanging it; once the lock is released, a start applies
/// it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_migration_waiting_on_a_lock_fails_by_the_settings_build_timeout() {
    use green_tea_core::settings::{Settings, Sources};
    use green_tea_core::{FailureCause, ProvideError};
    use green_tea_http::{App, RequestContext, Route};
    use green_tea_recipes::database::{DatabasePool, DatabaseSettings, Migration};

    let db = TestDatabase::sqlite();
    // Another instance, its schema applied, holding the write lock in a transaction.
    let other = serve(notes_app(&db, &[], Arc::default())).await;
    let holder = other.app.get::<Database>("database").await.unwrap();
    let lock = holder.begin_immediate().await.unwrap();

    let next = |build_timeout: &str| {
        App::builder()
            .settings(Sources::from_env_map([
                ("DATABASE_URL", db.url.as_str()),
                ("DATABASE_BUSY_TIMEOUT", "10m"),
                ("DATABASE_BUILD_TIMEOUT", build_timeout),
            ]))
            .provider(DatabaseSettings::provider())
            .provider(DatabasePool::new(database::migrations().with(
                Migration::new(3, "tags", "CREATE TABLE tags (id BIGINT PRIMARY KEY)"),
            )))
            .route(
                Route::get("/", |_: RequestContext| async { "hi" }).needs::<Database>("database"),
            )
            .build()
            .unwrap()
    };
    let app = next("1s");
    let error = app.start().await.unwrap_err();
    let ProvideError::Failed {
        provider, cause, ..
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(provider, "DatabasePool", "{error}");
    assert!(
        matches!(cause, FailureCause::TimedOut(limit) if *limit == std::time::Duration::from_secs(1)),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "provider `DatabasePool` (of `database`) failed: did not finish within 1s"
    );

    lock.rollback().await.unwrap();
    let app = next("1m");
    app.start().await.unwrap();
    let database = app.get::<Database>("database").await.unwrap();
    let tags: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tags")
        .fetch_one(database.pool())
        .await
        .unwrap();
    assert_eq!(tags, 0);
    app.close().await.unwrap();
    other.close().await;
}
