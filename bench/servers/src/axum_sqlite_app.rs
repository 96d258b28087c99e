//! The shop's write route on SQLite in axum 0.8 + sqlx, by hand (issue 27): a pool in `State`,
//! `pool.begin()`, the insert, `commit()`, 201 JSON. The same table, insert and settings as
//! green-tea's (`crate::sqlite`): WAL, the busy timeout, the pool's bound and acquire timeout,
//! `synchronous` NORMAL.
//!
//! Three times: `router` with sqlx's SQLite driver (`SqlitePool`) and `pool.begin()`, what an
//! axum application on SQLite writes; `any_router` with the database calls the recipe makes
//! (sqlx's `Any` pool, the driver chosen from the URL, and `pool.begin()`), which tells the
//! framework's cost apart from the database's; and `immediate_router`, sqlx's SQLite driver with
//! `BEGIN IMMEDIATE` (what the recipe's `TransactionStep::immediate` begins with).

use std::str::FromStr;

use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use http::StatusCode;
use sqlx::any::AnyPoolOptions;
use sqlx::migrate::MigrateDatabase;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Any, AnyPool, Executor};

use crate::sqlite::{
    ACQUIRE_TIMEOUT, BUSY_TIMEOUT, CREATE_ORDERS, INSERT_ORDER, MAX_CONNECTIONS, check_pragmas,
    database_url,
};
use crate::{Created, Order};

/// What a failed query answers (its cause is not the client's business).
fn failed(_: sqlx::Error) -> StatusCode {
    StatusCode::INTERNAL_SERVER_ERROR
}

async fn create(
    State(pool): State<SqlitePool>,
    Json(order): Json<Order>,
) -> Result<(StatusCode, Json<Created>), StatusCode> {
    let amount = i64::try_from(order.amount).map_err(|_| StatusCode::BAD_REQUEST)?;
    let mut tx = pool.begin().await.map_err(failed)?;
    sqlx::query(INSERT_ORDER)
        .bind(order.user_id)
        .bind(amount)
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    tx.commit().await.map_err(failed)?;
    Ok((StatusCode::CREATED, Json(Created { ok: true })))
}

async fn create_immediate(
    State(pool): State<SqlitePool>,
    Json(order): Json<Order>,
) -> Result<(StatusCode, Json<Created>), StatusCode> {
    let amount = i64::try_from(order.amount).map_err(|_| StatusCode::BAD_REQUEST)?;
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await.map_err(failed)?;
    sqlx::query(INSERT_ORDER)
        .bind(order.user_id)
        .bind(amount)
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    tx.commit().await.map_err(failed)?;
    Ok((StatusCode::CREATED, Json(Created { ok: true })))
}

/// The router over sqlx's SQLite pool, `pool.begin()`, the table made.
pub async fn router() -> Router {
    Router::new()
        .route("/orders", post(create))
        .route("/health", get(|| async { "ok" }))
        .with_state(sqlite_pool().await)
}

/// The router over sqlx's SQLite pool, `BEGIN IMMEDIATE`, the table made.
pub async fn immediate_router() -> Router {
    Router::new()
        .route("/orders", post(create_immediate))
        .route("/health", get(|| async { "ok" }))
        .with_state(sqlite_pool().await)
}

/// sqlx's SQLite pool, connected with the recipe's settings, the table made.
async fn sqlite_pool() -> SqlitePool {
    let options = SqliteConnectOptions::from_str(&database_url())
        .expect("a sqlite URL")
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .busy_timeout(BUSY_TIMEOUT)
        .synchronous(SqliteSynchronous::Normal);
    let pool = SqlitePoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options)
        .await
        .expect("the pool");
    pool.execute(CREATE_ORDERS).await.expect("the table");
    let journal_mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&pool)
        .await
        .expect("journal_mode");
    let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(&pool)
        .await
        .expect("synchronous");
    check_pragmas(&journal_mode, synchronous);
    pool
}

async fn create_any(
    State(pool): State<AnyPool>,
    Json(order): Json<Order>,
) -> Result<(StatusCode, Json<Created>), StatusCode> {
    let amount = i64::try_from(order.amount).map_err(|_| StatusCode::BAD_REQUEST)?;
    let mut tx = pool.begin().await.map_err(failed)?;
    sqlx::query(INSERT_ORDER)
        .bind(order.user_id)
        .bind(amount)
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    tx.commit().await.map_err(failed)?;
    Ok((StatusCode::CREATED, Json(Created { ok: true })))
}

/// The router over sqlx's `Any` pool, connected as the recipe connects (each connection sets
/// the busy timeout, then WAL; and `synchronous` NORMAL), the table made.
pub async fn any_router() -> Router {
    sqlx::any::install_default_drivers();
    let url = database_url();
    if !Any::database_exists(&url).await.expect("the file") {
        Any::create_database(&url).await.expect("the file made");
    }
    let busy_ms = BUSY_TIMEOUT.as_millis();
    let pool = AnyPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .after_connect(move |connection, _| {
            Box::pin(async move {
                connection
                    .execute(format!("PRAGMA busy_timeout = {busy_ms}").as_str())
                    .await?;
                connection.execute("PRAGMA journal_mode = WAL").await?;
                connection.execute("PRAGMA synchronous = NORMAL").await?;
                Ok(())
            })
        })
        .connect(&url)
        .await
        .expect("the pool");
    pool.execute(CREATE_ORDERS).await.expect("the table");
    let journal_mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&pool)
        .await
        .expect("journal_mode");
    let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(&pool)
        .await
        .expect("synchronous");
    check_pragmas(&journal_mode, synchronous);
    Router::new()
        .route("/orders", post(create_any))
        .route("/health", get(|| async { "ok" }))
        .with_state(pool)
}
