//! The shop's write route on SQLite, in green-tea as users write it (issue 27): the database
//! recipe (`DatabaseSettings`, `DatabasePool` providing `database`, `TransactionStep`
//! providing `tx`, which commits when the request succeeds) and a `#[route]` whose handler
//! needs `tx` and inserts through its lock; with `immediate`, the step begins with
//! `BEGIN IMMEDIATE` (`TransactionStep::immediate`). The settings come from the environment
//! (`DATABASE_URL`, and `DATABASE_SYNCHRONOUS=normal` as the scripts set it; the pool's bound
//! and timeouts are the recipe's defaults, checked against `crate::sqlite`'s).

use green_tea::prelude::*;
use green_tea_recipes::database::{
    Database, DatabasePool, DatabaseSettings, Migration, Migrations, Transaction, TransactionStep,
    http_error, sqlx,
};

use crate::sqlite::{ACQUIRE_TIMEOUT, BUSY_TIMEOUT, CREATE_ORDERS, INSERT_ORDER, MAX_CONNECTIONS};
use crate::{Created, Order};

/// The orders' table, applied when `database` is built.
fn migrations() -> Migrations {
    Migrations::new().with(Migration::new(1, "orders", CREATE_ORDERS))
}

/// `POST /orders`: the order inserted in the request's transaction, committed before the 201
/// is sent.
pub struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/")]
    async fn create(
        #[body] order: Order,
        #[needs("tx")] tx: &Transaction,
    ) -> Result<(StatusCode, Json<Created>), HttpError> {
        let amount = i64::try_from(order.amount)
            .map_err(|_| HttpError::bad_request("the amount is too large"))?;
        sqlx::query(INSERT_ORDER)
            .bind(order.user_id)
            .bind(amount)
            .execute(&mut *tx.lock().await)
            .await
            .map_err(http_error)?;
        Ok((StatusCode::CREATED, Json(Created { ok: true })))
    }
}

/// `GET /health`.
pub struct Health;

#[route("/health")]
impl Health {
    #[get("/")]
    async fn check() -> &'static str {
        "ok"
    }
}

/// The app, built but not started; its settings from the process's environment. `immediate`:
/// the `tx` step begins with `BEGIN IMMEDIATE` rather than `BEGIN`.
pub fn app(immediate: bool) -> App {
    let tx = if immediate {
        TransactionStep::new().immediate()
    } else {
        TransactionStep::new()
    };
    App::builder()
        .provider(DatabaseSettings::provider())
        .provider(DatabasePool::new(migrations()))
        .step(tx)
        .routes(Orders::routes())
        .routes(Health::routes())
        .build()
        .expect("a valid graph")
}

/// Exits unless the started app's database runs with the settings the axum servers use.
pub async fn check_settings(app: &App) {
    let settings = app
        .get::<DatabaseSettings>("databaseSettings")
        .await
        .expect("settings");
    assert_eq!(settings.max_connections, MAX_CONNECTIONS);
    assert_eq!(settings.acquire_timeout, ACQUIRE_TIMEOUT);
    assert_eq!(settings.busy_timeout, BUSY_TIMEOUT);
    let database = app.get::<Database>("database").await.expect("the pool");
    let journal_mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(database.pool())
        .await
        .expect("journal_mode");
    let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(database.pool())
        .await
        .expect("synchronous");
    crate::sqlite::check_pragmas(&journal_mode, synchronous);
}
