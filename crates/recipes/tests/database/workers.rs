//! The outbox relay on a real database, with requests writing: `close()` under write load
//! (requests in flight commit or roll back, the relay stops before the pool closes, nothing is
//! half-written, close returns), on SQLite and PostgreSQL; and PostgreSQL stopped mid-run
//! (the relay's rounds fail, it backs off, shows restarting in health, and delivers again once
//! the database is back, without a restart of the app).
#![cfg(feature = "sqlx")]

use crate::database;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use database::{TestDatabase, client, migrations, serve, within};
use green_tea_core::BoxError;
use green_tea_core::settings::{Settings, Sources};
use green_tea_core::workers::{Backoff, WorkerState};
use green_tea_http::{App, HttpError, Json, RequestContext, Route};
use green_tea_recipes::database::{
    DatabasePool, DatabaseSettings, Migration, OutboxEvent, OutboxRelay, OutboxSettings,
    OutboxSink, SharedSink, Transaction, TransactionStep, http_error, sqlx,
};
use http::{Request, StatusCode};
use http_body_util::Full;
use serde_json::json;

/// The sink the relay delivers to: the ids it got, in order.
#[derive(Default)]
struct Recorder(Mutex<Vec<i64>>);

impl Recorder {
    fn ids(&self) -> Vec<i64> {
        self.0.lock().unwrap().clone()
    }
}

impl OutboxSink for Recorder {
    async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError> {
        self.0.lock().unwrap().push(event.id);
        Ok(())
    }
}

/// The notes service's tables, and an outbox beside them.
fn schema() -> green_tea_recipes::database::Migrations {
    migrations().with(Migration::per_backend(
        3,
        "an outbox",
        "CREATE TABLE outbox (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, \
         payload TEXT NOT NULL, delivered_at BIGINT)",
        "CREATE TABLE outbox (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
         topic TEXT NOT NULL, payload TEXT NOT NULL, delivered_at BIGINT)",
    ))
}

/// `POST /notes` writes the note and its `note.created` event in the request's transaction;
/// the relay delivers the events to `recorder`, polling every 10 ms (`OUTBOX_INTERVAL`).
fn evented_app(db: &TestDatabase, env: &[(&str, &str)], recorder: &Arc<Recorder>) -> App {
    let mut vars = vec![
        ("DATABASE_URL".to_owned(), db.url.clone()),
        ("OUTBOX_INTERVAL".to_owned(), "10ms".to_owned()),
    ];
    vars.extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    App::builder()
        .settings(Sources::from_env_map(vars))
        .provider(DatabaseSettings::provider())
        .provider(DatabasePool::new(schema()))
        .provider(OutboxSettings::provider())
        .step(TransactionStep::new())
        .value("outboxSink", SharedSink::from_arc(Arc::clone(recorder)))
        .worker(OutboxRelay::new().backoff(Backoff::new(
            Duration::from_millis(50),
            Duration::from_millis(400),
        )))
        .route(
            Route::post("/notes", |mut request: RequestContext| async move {
                let tx = request.need::<Transaction>(0)?;
                let body = request.text().await?;
                let mut connection = tx.lock().await;
                let id: i64 =
                    sqlx::query_scalar("INSERT INTO notes (body) VALUES ($1) RETURNING id")
                        .bind(body.clone())
                        .fetch_one(&mut *connection)
                        .await
                        .map_err(http_error)?;
                // A pause between the two writes: a close that cut here would leave half.
                tokio::task::yield_now().await;
                sqlx::query("INSERT INTO outbox (topic, payload) VALUES ($1, $2)")
                    .bind("note.created")
                    .bind(json!({ "id": id, "body": body }).to_string())
                    .execute(&mut *connection)
                    .await
                    .map_err(http_error)?;
                Ok::<_, HttpError>((StatusCode::CREATED, Json(json!({ "id": id }))))
            })
            .needs::<Transaction>("tx"),
        )
        .worker_stop_timeout(Duration::from_secs(10))
        .build()
        .expect("the evented notes service builds")
}

/// A pool of the test's own on `db`, after the app is gone.
async fn reopen(db: &TestDatabase) -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    sqlx::AnyPool::connect(&db.url)
        .await
        .expect("the database reopens")
}

/// Sends a write; `None` when the server no longer takes it (refused, reset, or 503 closing).
async fn write(
    client: &hyper_util::client::legacy::Client<
        hyper_util::client::legacy::connect::HttpConnector,
        Full<Bytes>,
    >,
    url: &str,
    body: String,
) -> Option<u16> {
    let request = Request::post(url)
        .header("content-type", "text/plain")
        .body(Full::new(Bytes::from(body)))
        .ok()?;
    let response = client.request(request).await.ok()?;
    Some(response.status().as_u16())
}

on_both!(close_under_write_load_loses_nothing_and_stops_the_relay_before_the_pool);

async fn close_under_write_load_loses_nothing_and_stops_the_relay_before_the_pool(
    db: TestDatabase,
) {
    let recorder = Arc::new(Recorder::default());
    let env = [("DATABASE_MAX_CONNECTIONS", "10")];
    let served = serve(evented_app(&db, &env, &recorder)).await;
    let url = served.url("/notes");
    let created = Arc::new(Mutex::new(Vec::<String>::new()));
    let answered_503 = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..20)
        .map(|writer| {
            let (url, created, answered_503, stop) = (
                url.clone(),
                Arc::clone(&created),
                Arc::clone(&answered_503),
                Arc::clone(&stop),
            );
            tokio::spawn(async move {
                let client = client();
                for n in 0.. {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let body = format!("w{writer}-{n}");
                    match write(&client, &url, body.clone()).await {
                        Some(201) => created.lock().unwrap().push(body),
                        Some(503) => {
                            answered_503.fetch_add(1, Ordering::SeqCst);
                            break;
                        }
                        Some(other) => panic!("a write answered {other}"),
                        None => break,
                    }
                }
            })
        })
        .collect();
    // Under load, with the relay delivering as it goes.
    within("100 writes", async {
        while created.lock().unwrap().len() < 100 || recorder.ids().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let app = served.app.clone();
    // close() directly (not the serve's stop first): requests in flight drain, new ones 503.
    within("close() under load", app.close())
        .await
        .expect("nothing failed: the drain, the relay's stop, the pool's dispose");
    stop.store(true, Ordering::SeqCst);
    for writer in writers {
        within("a writer", writer).await.unwrap();
    }
    drop(served);
    let health = app.health().await;
    assert_eq!(health.workers[0].state, WorkerState::Stopped);
    assert_eq!(health.workers[0].failures, 0, "{:?}", health.workers[0]);

    let pool = reopen(&db).await;
    let notes: Vec<(i64, String)> = sqlx::query_as("SELECT id, body FROM notes ORDER BY id")
        .fetch_all(&pool)
        .await
        .unwrap();
    let outbox: Vec<(i64, String, Option<i64>)> =
        sqlx::query_as("SELECT id, payload, delivered_at FROM outbox ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
    pool.close().await;
    // Every 201 is one note, and only the 201s are: nothing half-written, nothing lost.
    let mut written: Vec<String> = notes.iter().map(|(_, b)| b.clone()).collect();
    let mut answered = created.lock().unwrap().clone();
    written.sort();
    answered.sort();
    assert_eq!(written, answered);
    // Each note has its event, and each event its note (ids are handed out as transactions
    // ask, so the two tables' orders may differ on PostgreSQL).
    let mut events: Vec<serde_json::Value> = outbox
        .iter()
        .map(|(_, payload, _)| serde_json::from_str(payload).unwrap())
        .collect();
    let mut expected: Vec<serde_json::Value> = notes
        .iter()
        .map(|(id, body)| json!({ "id": id, "body": body }))
        .collect();
    let by_id = |v: &serde_json::Value| v["id"].as_i64();
    events.sort_by_key(by_id);
    expected.sort_by_key(by_id);
    assert_eq!(events, expected);
    // What the relay delivered is what it marked, each once (in id order among the events
    // committed when a round looked: on PostgreSQL an id taken early and committed late comes
    // later).
    let marked: Vec<i64> = outbox
        .iter()
        .filter(|(_, _, delivered)| delivered.is_some())
        .map(|(id, _, _)| *id)
        .collect();
    let mut delivered = recorder.ids();
    let count = delivered.len();
    delivered.sort_unstable();
    delivered.dedup();
    assert_eq!(delivered.len(), count, "none twice: {:?}", recorder.ids());
    assert_eq!(delivered, marked);
    assert!(!marked.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stopped_the_relay_backs_off_and_delivers_again_once_it_is_back() {
    let Some(mut db) = TestDatabase::postgres() else {
        return;
    };
    let recorder = Arc::new(Recorder::default());
    let env = [
        ("DATABASE_MAX_CONNECTIONS", "4"),
        ("DATABASE_ACQUIRE_TIMEOUT", "1s"),
    ];
    let served = serve(evented_app(&db, &env, &recorder)).await;
    let client = client();
    let url = served.url("/notes");
    assert_eq!(write(&client, &url, "before".into()).await, Some(201));
    within("the first delivery", async {
        while recorder.ids().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;

    db.server().stop();
    // The relay's rounds fail: it waits its backoff and tries again, and says so.
    within("the relay to back off", async {
        loop {
            let health = served.app.health().await;
            let relay = &health.workers[0];
            if relay.failures >= 2 && relay.state == WorkerState::Restarting {
                assert!(relay.restart_in_millis.is_some(), "{relay:?}");
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(write(&client, &url, "during".into()).await, Some(503));

    db.server().start();
    let after = within("a write once it is back", async {
        loop {
            if write(&client, &url, "after".into()).await == Some(201) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    after.await;
    within("the relay to deliver again", async {
        while recorder.ids().len() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let health = served.app.health().await;
    assert_eq!(health.workers[0].state, WorkerState::Running);
    assert!(health.workers[0].restarts >= 1);
    // The first event, then the one written once it was back (PostgreSQL's identity skips
    // the ids of the writes that failed in between).
    let ids = recorder.ids();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids[0] == 1 && ids[1] > 1, "{ids:?}");
    // It rode out the outage: its failures are in its health, and the shutdown is clean
    // (an orchestrator reads a failed close as a failed stop of a healthy process).
    assert!(health.workers[0].failures >= 1);
    assert!(health.workers[0].last_error.is_some());
    served.app.close().await.unwrap();
}

/// The outbox with `count` events in it before the relay starts (a migration writes them).
fn seeded(count: usize) -> green_tea_recipes::database::Migrations {
    let values: Vec<String> = (0..count).map(|n| format!("('seeded', '{n}')")).collect();
    schema().with(Migration::new(
        4,
        "seeded events",
        format!(
            "INSERT INTO outbox (topic, payload) VALUES {}",
            values.join(", ")
        ),
    ))
}

/// A relay on `db` with `sink`, its settings from `env`, and nothing else.
fn relay_app(db: &TestDatabase, env: &[(&str, &str)], sink: SharedSink, relay: OutboxRelay) -> App {
    let mut vars = vec![("DATABASE_URL".to_owned(), db.url.clone())];
    vars.extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    App::builder()
        .settings(Sources::from_env_map(vars))
        .provider(DatabaseSettings::provider())
        .provider(DatabasePool::new(seeded(5)))
        .provider(OutboxSettings::provider())
        .value("outboxSink", sink)
        .worker(relay)
        .health_routes("/healthz", "/readyz")
        .build()
        .expect("the relay's app builds")
}

/// A sink that, at each delivery, counts the events not yet marked delivered: a round's
/// events all see the same count, so the counts show the rounds.
struct Counting {
    url: String,
    pool: tokio::sync::OnceCell<sqlx::AnyPool>,
    seen: Mutex<Vec<(i64, i64)>>,
}

impl OutboxSink for Counting {
    async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError> {
        let pool = self
            .pool
            .get_or_try_init(|| async {
                sqlx::any::install_default_drivers();
                sqlx::AnyPool::connect(&self.url).await
            })
            .await?;
        let undelivered: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM outbox WHERE delivered_at IS NULL")
                .fetch_one(pool)
                .await?;
        self.seen.lock().unwrap().push((event.id, undelivered));
        Ok(())
    }
}

on_both!(the_relay_takes_as_many_events_a_round_as_outbox_batch_says);

async fn the_relay_takes_as_many_events_a_round_as_outbox_batch_says(db: TestDatabase) {
    let sink = Arc::new(Counting {
        url: db.url.clone(),
        pool: tokio::sync::OnceCell::new(),
        seen: Mutex::new(Vec::new()),
    });
    let app = relay_app(
        &db,
        &[("OUTBOX_BATCH", "2")],
        SharedSink::from_arc(Arc::clone(&sink)),
        OutboxRelay::new(),
    );
    app.start().await.unwrap();
    within("five deliveries", async {
        while sink.seen.lock().unwrap().len() < 5 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    app.close().await.unwrap();
    if let Some(pool) = sink.pool.get() {
        pool.close().await;
    }
    // Rounds of two, two and one: each marks its events before the next one looks.
    let seen = sink.seen.lock().unwrap().clone();
    assert_eq!(seen, [(1, 5), (2, 5), (3, 3), (4, 3), (5, 1)]);
}

/// A sink that refuses every event.
struct Refusing;

impl OutboxSink for Refusing {
    async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError> {
        Err(format!("the broker refused event {}", event.id).into())
    }
}

/// The relay's run fails on the sink's error and waits an hour to restart: the app is not
/// ready while it waits when the relay is critical, and is ready when it is not.
async fn ready_while_the_relay_waits_to_restart(critical: bool) -> bool {
    let db = TestDatabase::sqlite();
    let hour = Duration::from_secs(3600);
    let relay = OutboxRelay::new().backoff(Backoff::new(hour, hour));
    let relay = if critical { relay.critical() } else { relay };
    let app = relay_app(&db, &[], SharedSink::new(Refusing), relay);
    app.start().await.unwrap();
    let health = within("the relay to fail", async {
        loop {
            let health = app.health().await;
            if health.workers[0].state == WorkerState::Restarting {
                break health;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let relay = &health.workers[0];
    assert_eq!(relay.critical, critical);
    assert_eq!(
        relay.last_error.as_deref(),
        Some("the broker refused event 1"),
        "{relay:?}"
    );
    // Still failing at the shutdown: whatever close() says of it is the workers' rule.
    let _ = app.close().await;
    health.ready
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_critical_relay_waiting_to_restart_makes_the_app_not_ready() {
    assert!(!ready_while_the_relay_waits_to_restart(true).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_not_marked_critical_waiting_to_restart_leaves_the_app_ready() {
    assert!(ready_while_the_relay_waits_to_restart(false).await);
}

/// The relay's settings are read at build() with the rest: in the one report, each value's
/// source named, and a zero interval or batch refused there, both at once.
#[tokio::test]
async fn the_relays_settings_are_reported_with_the_rest_and_zeros_refused_at_build() {
    let db = TestDatabase::sqlite();
    let app = relay_app(
        &db,
        &[("OUTBOX_INTERVAL", "1s")],
        SharedSink::new(Refusing),
        OutboxRelay::new(),
    );
    let report = app.settings_report().to_string();
    assert!(report.contains("databaseSettings"), "{report}");
    assert!(report.contains("outboxSettings"), "{report}");
    assert!(report.contains("(env OUTBOX_INTERVAL)"), "{report}");
    assert!(report.contains("batch = 100 (default)"), "{report}");
    assert_eq!(
        app.get::<OutboxSettings>("outboxSettings")
            .await
            .unwrap()
            .interval,
        Duration::from_secs(1)
    );
    app.close().await.unwrap();

    let error = App::builder()
        .settings(Sources::from_env_map([
            ("OUTBOX_INTERVAL", "0s"),
            ("OUTBOX_BATCH", "0"),
        ]))
        .provider(OutboxSettings::provider())
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("GT0018"), "{error}");
    assert!(error.contains("`interval` is zero"), "{error}");
    // One check per type stops at its first refusal: the batch's is the next build's.
    let error = App::builder()
        .settings(Sources::from_env_map([("OUTBOX_BATCH", "0")]))
        .provider(OutboxSettings::provider())
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("`batch` is zero"), "{error}");
}

/// A relay without its settings registered is refused at build(), naming the key it needs.
#[test]
fn a_relay_without_its_settings_is_refused_at_build() {
    let error = App::builder()
        .value("database", 0_u8)
        .value("outboxSink", SharedSink::new(Refusing))
        .worker(OutboxRelay::new())
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("GT0001"), "{error}");
    assert!(error.contains("`outboxSettings`"), "{error}");
    assert!(error.contains("worker `outbox_relay`"), "{error}");
}
