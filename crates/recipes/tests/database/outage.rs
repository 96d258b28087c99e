//! PostgreSQL stopped mid-run (`pg_ctl stop -m immediate`, every connection cut): requests
//! answer 503 JSON, the ping reports down and readiness goes down (through the async health
//! check of the critical `database`); started again, the same app recovers without a restart,
//! readiness too. PostgreSQL only (SQLite is a file in process: it has no outage of this kind).
#![cfg(feature = "sqlx")]

use crate::database;

use std::sync::Arc;
use std::time::Duration;

use database::{TestDatabase, bodies, client, notes_app, send, serve, within};
use green_tea_core::CheckStatus;
use green_tea_recipes::database::Database;
use http::Method;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stopped_mid_run_answers_503_and_recovers_when_started_again() {
    let Some(mut db) = TestDatabase::postgres() else {
        return;
    };
    let env = [
        ("DATABASE_MAX_CONNECTIONS", "4"),
        ("DATABASE_ACQUIRE_TIMEOUT", "1s"),
    ];
    let served = serve(notes_app(&db, &env, Arc::default())).await;
    let client = client();
    let before = send(&client, Method::POST, &served.url("/notes"), "before").await;
    assert_eq!(before.status, 201, "{before:?}");
    let database = served.app.get::<Database>("database").await.unwrap();

    db.server().stop();
    for path in ["/notes", "/notes/count"] {
        let method = if path == "/notes" {
            Method::POST
        } else {
            Method::GET
        };
        let down = send(&client, method, &served.url(path), "during").await;
        assert_eq!(down.status, 503, "{path}: {down:?}");
        assert!(
            down.json["error"]
                .as_str()
                .is_some_and(|e| e.starts_with("the database is")),
            "{path}: {down:?}"
        );
        assert_eq!(down.retry_after.as_deref(), Some("1"));
    }
    let ping = within("the ping", database.ping()).await;
    assert_eq!(ping.status, CheckStatus::Down, "{ping:?}");
    let ready = send(&client, Method::GET, &served.url("/readyz"), "").await;
    assert_eq!(ready.status, 503, "{ready:?}");
    assert_eq!(ready.json["ready"], false, "{ready:?}");

    db.server().start();
    // The pool reconnects on its own: the first request after the restart may still find a
    // dead connection, so this waits (bounded) for the first success.
    let recovered = within("the first write after the restart", async {
        loop {
            let answer = send(&client, Method::POST, &served.url("/notes"), "after").await;
            if answer.status == 201 {
                break answer;
            }
            assert_eq!(answer.status, 503, "{answer:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert_eq!(recovered.status, 201);
    let ping = within("the ping", database.ping()).await;
    assert_eq!(ping.status, CheckStatus::Up, "{ping:?}");
    let ready = send(&client, Method::GET, &served.url("/readyz"), "").await;
    assert_eq!(ready.status, 200, "{ready:?}");
    assert_eq!(bodies(&served.app).await, ["before", "after"]);
    let count = send(&client, Method::GET, &served.url("/notes/count"), "").await;
    assert_eq!(count.json, json!({ "count": 2 }));
    served.close().await;
}
