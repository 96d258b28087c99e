//! The request's transaction on a real database, over real HTTP, each scenario on SQLite and
//! on PostgreSQL (`<scenario>::sqlite`, `<scenario>::postgres`): a 2xx commits; an error
//! answer, a panic and a client that disconnects mid-handler leave nothing written; a commit
//! that fails answers 500 JSON instead of the handler's 201. After each failure the next
//! write goes through (on SQLite: the write lock was given back). Requests hung up on at
//! every point of their begin leave no pooled connection inside a transaction.
#![cfg(feature = "sqlx")]

use crate::database;

use std::sync::Arc;

use database::{Hold, TestDatabase, bodies, children, client, notes_app, send, serve, within};
use http::Method;
use serde_json::json;
use tokio::io::AsyncWriteExt;

on_both!(
    a_success_commits,
    an_error_answer_rolls_back,
    a_panicking_handler_rolls_back,
    a_client_that_disconnects_mid_handler_leaves_nothing_written,
    a_commit_that_fails_answers_500_not_201,
    requests_dropped_during_their_begin_leave_no_connection_in_a_transaction,
);

/// 201: the row is there, to the app's pool and to the route that reads through it.
async fn a_success_commits(db: TestDatabase) {
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let client = client();
    let created = send(&client, Method::POST, &served.url("/notes"), "first").await;
    assert_eq!(created.status, 201, "{created:?}");
    assert!(created.json["id"].is_i64(), "{created:?}");
    assert_eq!(bodies(&served.app).await, ["first"]);
    let count = send(&client, Method::GET, &served.url("/notes/count"), "").await;
    assert_eq!(count.json, json!({ "count": 1 }));
    served.close().await;
}

/// The handler wrote, then answered 409: its answer stands, and the write is rolled back.
async fn an_error_answer_rolls_back(db: TestDatabase) {
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let client = client();
    let refused = send(&client, Method::POST, &served.url("/notes/conflict"), "no").await;
    assert_eq!(refused.status, 409);
    assert_eq!(refused.json, json!({ "error": "written, then refused" }));
    assert!(bodies(&served.app).await.is_empty());
    let next = send(&client, Method::POST, &served.url("/notes"), "next").await;
    assert_eq!(next.status, 201, "{next:?}");
    assert_eq!(bodies(&served.app).await, ["next"]);
    served.close().await;
}

/// The handler wrote, then panicked: 500 JSON, rolled back, and the server serves on.
async fn a_panicking_handler_rolls_back(db: TestDatabase) {
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let client = client();
    let panicked = send(&client, Method::POST, &served.url("/notes/panic"), "boom").await;
    assert_eq!(panicked.status, 500);
    assert_eq!(panicked.json, json!({ "error": "internal server error" }));
    assert!(bodies(&served.app).await.is_empty());
    let next = send(&client, Method::POST, &served.url("/notes"), "next").await;
    assert_eq!(next.status, 201, "{next:?}");
    assert_eq!(bodies(&served.app).await, ["next"]);
    served.close().await;
}

/// Over a raw TCP connection: the request is sent, the handler writes and waits; the client
/// drops the connection. hyper notices the closed connection (HTTP/1: a read of end-of-file
/// while the service is pending; it does not half-close) and drops the request's future: the
/// handler is dropped at its await (its drop alarm rings), no finish runs, and the transaction
/// drops, so sqlx rolls it back (the `ROLLBACK` is sent when the connection returns to the
/// pool). Releasing the handler afterwards reaches no one. Nothing is written, and the next
/// write goes through.
async fn a_client_that_disconnects_mid_handler_leaves_nothing_written(db: TestDatabase) {
    let hold = Arc::new(Hold::default());
    let served = serve(notes_app(&db, &[], Arc::clone(&hold))).await;
    let mut stream = tokio::net::TcpStream::connect(served.addr)
        .await
        .expect("a connection");
    let body = "abandoned";
    let request = format!(
        "POST /notes/held HTTP/1.1\r\nhost: test\r\ncontent-type: text/plain\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("the request is sent");
    within("the handler's write", hold.written.notified()).await;
    drop(stream);
    within(
        "the handler's future to be dropped",
        hold.dropped.notified(),
    )
    .await;
    hold.release.notify_one();
    assert!(
        bodies(&served.app).await.is_empty(),
        "the write rolled back"
    );
    let client = client();
    let next = send(&client, Method::POST, &served.url("/notes"), "next").await;
    assert_eq!(next.status, 201, "{next:?}");
    assert_eq!(bodies(&served.app).await, ["next"]);
    served.close().await;
}

/// The handler's insert breaks a foreign key checked only at commit (`DEFERRABLE INITIALLY
/// DEFERRED`; on SQLite with `foreign_keys` on, as sqlx sets it): the handler answered 201,
/// the commit fails, and the client gets 500 JSON. The row is not there.
async fn a_commit_that_fails_answers_500_not_201(db: TestDatabase) {
    let served = serve(notes_app(&db, &[], Arc::default())).await;
    let client = client();
    let failed = send(&client, Method::POST, &served.url("/orphans"), "").await;
    assert_eq!(failed.status, 500, "{failed:?}");
    assert_eq!(failed.json, json!({ "error": "internal server error" }));
    assert_eq!(children(&served.app).await, 0);
    let next = send(&client, Method::POST, &served.url("/notes"), "next").await;
    assert_eq!(next.status, 201, "{next:?}");
    served.close().await;
}

/// Over raw TCP, rounds of requests whose clients hang up after a different number of
/// scheduler turns each, so that they are dropped at different points of their begin, their
/// insert and their answer: on both begins (`tx` and `txImmediate`), under one another's write
/// locks. Afterwards no connection of the pool is inside a transaction, and writes on both
/// routes answer 201 (a poisoned connection answers 500, and the write lock it holds turns the
/// others' writes into 503s). Where a hang-up lands is up to the scheduler; the pool's test
/// `a_begin_dropped_at_any_of_its_awaits_gives_its_connection_back_clean` drops a begin at each
/// of its awaits in turn.
async fn requests_dropped_during_their_begin_leave_no_connection_in_a_transaction(
    db: TestDatabase,
) {
    let env = [
        ("DATABASE_MAX_CONNECTIONS", "4"),
        ("DATABASE_BUSY_TIMEOUT", "1s"),
    ];
    let served = serve(notes_app(&db, &env, Arc::default())).await;
    for round in 0..6_usize {
        let clients: Vec<_> = (0..40_usize)
            .map(|n| {
                let addr = served.addr;
                tokio::spawn(async move {
                    let path = ["/notes/immediate", "/notes"][n % 2];
                    let body = format!("dropped-{round}-{n}");
                    let request = format!(
                        "POST {path} HTTP/1.1\r\nhost: test\r\ncontent-type: text/plain\r\n\
                         content-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    let mut stream = tokio::net::TcpStream::connect(addr)
                        .await
                        .expect("a connection");
                    stream
                        .write_all(request.as_bytes())
                        .await
                        .expect("the request is sent");
                    for _ in 0..(n * 7 + round * 3) % 50 {
                        tokio::task::yield_now().await;
                    }
                    drop(stream);
                })
            })
            .collect();
        for client in clients {
            within("a client", client).await.expect("it hung up");
        }
    }
    let client = client();
    for n in 0..8 {
        for path in ["/notes/immediate", "/notes"] {
            let body = format!("after-{n}");
            let written = send(&client, Method::POST, &served.url(path), &body).await;
            assert_eq!(written.status, 201, "{path}: {written:?}");
        }
    }
    // Every connection the pool holds, taken at once: none inside a transaction.
    let database = served
        .app
        .get::<green_tea_recipes::database::Database>("database")
        .await
        .expect("the database");
    let mut taken = Vec::new();
    for _ in 0..4 {
        let connection = within("a connection", database.pool().acquire())
            .await
            .expect("a connection");
        taken.push(connection);
    }
    for connection in &taken {
        assert!(
            !green_tea_recipes::database::sqlx::Connection::is_in_transaction(&**connection),
            "a pooled connection inside a transaction"
        );
    }
    drop(taken);
    served.close().await;
}
