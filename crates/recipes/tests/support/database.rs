//! The database tests' app and tools: a notes service on the recipe (its pool, migrations and
//! transaction step), served on loopback; a client; the two databases each scenario runs on
//! (`on_both!`): SQLite in a temp directory of the test's own, in every run, and PostgreSQL
//! (support/postgres.rs) where it is installed.
#![allow(dead_code)] // each test file uses its own part

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bytes::Bytes;
use green_tea_core::settings::{Settings, Sources};
use green_tea_http::{App, HttpError, Json, RequestContext, Route};
use green_tea_recipes::database::{
    Backend, Database, DatabasePool, DatabaseSettings, Migration, Migrations, Transaction,
    TransactionStep, http_error, sqlx,
};
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

use super::postgres::Postgres;

/// How long anything may take before the test calls it a hang: a bound, never waited out.
pub(crate) const HANG: Duration = Duration::from_secs(60);

/// Awaits `future`, failing the test if it hangs.
pub(crate) async fn within<F: std::future::Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(HANG, future)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {HANG:?}"))
}

/// Runs each named scenario, an `async fn(TestDatabase)`, once on SQLite and once on
/// PostgreSQL: `mod <name> { fn sqlite, fn postgres }` (`#[macro_use]` on the module).
macro_rules! on_both {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$scenario(super::database::TestDatabase::sqlite()).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some(db) = super::database::TestDatabase::postgres() else { return };
                super::$scenario(db).await;
            }
        }
    )*};
}

/// A database of the test's own: a SQLite file in a fresh directory, or a PostgreSQL server.
pub(crate) struct TestDatabase {
    pub(crate) url: String,
    pub(crate) backend: Backend,
    /// The SQLite file's directory, removed on drop.
    dir: Option<PathBuf>,
    /// The PostgreSQL server, stopped and removed on drop.
    pub(crate) postgres: Option<Postgres>,
}

impl TestDatabase {
    /// A SQLite file in a directory that does not exist yet (the pool makes both).
    pub(crate) fn sqlite() -> TestDatabase {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gt-sqlite-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        TestDatabase {
            url: format!("sqlite://{}/notes.db", dir.display()),
            backend: Backend::Sqlite,
            dir: Some(dir),
            postgres: None,
        }
    }

    /// A PostgreSQL server of its own, or `None` where PostgreSQL is missing (and not
    /// required).
    pub(crate) fn postgres() -> Option<TestDatabase> {
        let postgres = Postgres::start_new()?;
        Some(TestDatabase {
            url: postgres.url(),
            backend: Backend::Postgres,
            dir: None,
            postgres: Some(postgres),
        })
    }

    /// The PostgreSQL server (a scenario that stops it runs on PostgreSQL only).
    pub(crate) fn server(&mut self) -> &mut Postgres {
        self.postgres.as_mut().expect("a PostgreSQL database")
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The notes service's schema: `notes` (one row per write), and a parent/child pair whose
/// foreign key is checked only at commit (`DEFERRABLE INITIALLY DEFERRED`), for a commit that
/// fails.
pub(crate) fn migrations() -> Migrations {
    Migrations::new()
        .with(Migration::per_backend(
            1,
            "notes",
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
            "CREATE TABLE notes (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
             body TEXT NOT NULL)",
        ))
        .with(Migration::new(
            2,
            "parents and children, checked at commit",
            "CREATE TABLE parents (id BIGINT PRIMARY KEY); \
             CREATE TABLE children (id BIGINT PRIMARY KEY, parent_id BIGINT NOT NULL \
             REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)",
        ))
}

/// Where the test holds a handler: it has written (`written`), it waits for `release`;
/// `dropped` is told when its future is dropped before it answered.
#[derive(Default)]
pub(crate) struct Hold {
    pub(crate) written: Notify,
    pub(crate) release: Notify,
    pub(crate) dropped: Notify,
    pub(crate) answered: Notify,
}

/// Tells `dropped` unless disarmed: the handler's future was dropped while it waited.
struct DropAlarm(Arc<Hold>, bool);

impl Drop for DropAlarm {
    fn drop(&mut self) {
        if self.1 {
            self.0.dropped.notify_one();
        }
    }
}

/// Inserts `body` into `notes` through the request's transaction.
async fn insert(tx: &Transaction, body: &str) -> Result<i64, HttpError> {
    sqlx::query_scalar::<_, i64>("INSERT INTO notes (body) VALUES ($1) RETURNING id")
        .bind(body.to_owned())
        .fetch_one(&mut *tx.lock().await)
        .await
        .map_err(http_error)
}

/// The notes service on `db`, with `env` as its `DATABASE_*` settings besides the URL:
///
/// - `POST /notes` writes the body and answers 201 `{"id": ...}`;
/// - `POST /notes/immediate` does the same in a transaction begun with
///   `Database::begin_immediate` (the `txImmediate` step);
/// - `POST /notes/conflict` writes it, then answers 409;
/// - `POST /notes/panic` writes it, then panics;
/// - `POST /notes/held` writes it, tells `hold.written`, waits for `hold.release`, answers 201;
/// - `POST /orphans` writes a child of no parent (checked at commit) and answers 201;
/// - `GET /notes/count` counts the notes through the pool (no transaction).
///
/// Health routes `/healthz` and `/readyz`; `database` is critical and its ping is its async
/// health check.
pub(crate) fn notes_app(db: &TestDatabase, env: &[(&str, &str)], hold: Arc<Hold>) -> App {
    let mut vars = vec![("DATABASE_URL".to_owned(), db.url.clone())];
    vars.extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    App::builder()
        .settings(Sources::from_env_map(vars))
        .provider(DatabaseSettings::provider())
        .provider(DatabasePool::new(migrations()))
        .step(TransactionStep::new())
        .step(TransactionStep::with_keys("txImmediate", "database").immediate())
        .value("hold", hold)
        .critical("database")
        .async_health_check::<Database>("database")
        // Each readiness request asks the database anew: the outage test watches it change.
        .health_check_cache(Duration::from_millis(1))
        .health_routes("/healthz", "/readyz")
        .route(
            Route::post("/notes", |mut request: RequestContext| async move {
                let tx = request.need::<Transaction>(0)?;
                let body = request.text().await?;
                let id = insert(&tx, &body).await?;
                Ok::<_, HttpError>((StatusCode::CREATED, Json(json!({ "id": id }))))
            })
            .needs::<Transaction>("tx"),
        )
        .route(
            Route::post(
                "/notes/immediate",
                |mut request: RequestContext| async move {
                    let tx = request.need::<Transaction>(0)?;
                    let body = request.text().await?;
                    let id = insert(&tx, &body).await?;
                    Ok::<_, HttpError>((StatusCode::CREATED, Json(json!({ "id": id }))))
                },
            )
            .needs::<Transaction>("txImmediate"),
        )
        .route(
            Route::post(
                "/notes/conflict",
                |mut request: RequestContext| async move {
                    let tx = request.need::<Transaction>(0)?;
                    let body = request.text().await?;
                    insert(&tx, &body).await?;
                    Err::<(), _>(HttpError::new(409, "written, then refused"))
                },
            )
            .needs::<Transaction>("tx"),
        )
        .route(
            Route::post("/notes/panic", |mut request: RequestContext| async move {
                let tx = request.need::<Transaction>(0)?;
                let body = request.text().await?;
                insert(&tx, &body).await?;
                if !body.is_empty() {
                    panic!("written, then panicked");
                }
                Ok::<_, HttpError>(StatusCode::CREATED)
            })
            .needs::<Transaction>("tx"),
        )
        .route(
            Route::post("/notes/held", |mut request: RequestContext| async move {
                let tx = request.need::<Transaction>(0)?;
                let hold = request.need::<Arc<Hold>>(1)?;
                let body = request.text().await?;
                let id = insert(&tx, &body).await?;
                let mut alarm = DropAlarm(Arc::clone(&hold), true);
                hold.written.notify_one();
                hold.release.notified().await;
                alarm.1 = false;
                hold.answered.notify_one();
                Ok::<_, HttpError>((StatusCode::CREATED, Json(json!({ "id": id }))))
            })
            .needs::<Transaction>("tx")
            .needs::<Arc<Hold>>("hold"),
        )
        .route(
            Route::post("/orphans", |request: RequestContext| async move {
                let tx = request.need::<Transaction>(0)?;
                sqlx::query("INSERT INTO children (id, parent_id) VALUES ($1, $2)")
                    .bind(1_i64)
                    .bind(999_i64)
                    .execute(&mut *tx.lock().await)
                    .await
                    .map_err(http_error)?;
                Ok::<_, HttpError>((StatusCode::CREATED, Json(json!({ "child": 1 }))))
            })
            .needs::<Transaction>("tx"),
        )
        .route(
            Route::get("/notes/count", |request: RequestContext| async move {
                let database = request.need::<Database>(0)?;
                let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notes")
                    .fetch_one(database.pool())
                    .await
                    .map_err(http_error)?;
                Ok::<_, HttpError>(Json(json!({ "count": count })))
            })
            .needs::<Database>("database"),
        )
        .build()
        .expect("the notes service builds")
}

/// Every note's body, as the database has them (read through the app's own pool).
pub(crate) async fn bodies(app: &App) -> Vec<String> {
    let database = app.get::<Database>("database").await.expect("the pool");
    sqlx::query_scalar("SELECT body FROM notes ORDER BY id")
        .fetch_all(database.pool())
        .await
        .expect("the notes read")
}

/// How many children the database has.
pub(crate) async fn children(app: &App) -> i64 {
    let database = app.get::<Database>("database").await.expect("the pool");
    sqlx::query_scalar("SELECT COUNT(*) FROM children")
        .fetch_one(database.pool())
        .await
        .expect("the children counted")
}

/// An app served on 127.0.0.1 until dropped (or closed).
pub(crate) struct Served {
    pub(crate) app: App,
    pub(crate) addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// Starts `app` (building the pool, so the migrations run) and serves it.
pub(crate) async fn serve(app: App) -> Served {
    within("start()", app.start())
        .await
        .expect("the app starts");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = app.clone();
    let task = tokio::spawn(async move {
        let _ = serving
            .serve_until(listener, async {
                let _ = stopped.await;
            })
            .await;
    });
    Served {
        app,
        addr,
        stop: Some(stop),
        task: Some(task),
    }
}

impl Served {
    /// Stops serving and closes the app (the pool's dispose closes it).
    pub(crate) async fn close(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            within("the serve's end", task).await.expect("serve ended");
        }
        within("close()", self.app.close())
            .await
            .expect("the app closes");
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// An answer: status, `Retry-After`, and the body as JSON (`Null` when it is not JSON).
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<String>,
    pub(crate) json: Value,
}

/// A pooled HTTP/1 client.
pub(crate) fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

/// Sends `method` `url` with `body` and reads the whole answer.
pub(crate) async fn send(
    client: &Client<HttpConnector, Full<Bytes>>,
    method: Method,
    url: &str,
    body: &str,
) -> Answer {
    let request = Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "text/plain")
        .body(Full::new(Bytes::from(body.to_owned())))
        .expect("a request");
    let response = within("an answer", client.request(request))
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = within("the body", response.into_body().collect())
        .await
        .expect("the body")
        .to_bytes();
    Answer {
        status,
        retry_after,
        json: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}
