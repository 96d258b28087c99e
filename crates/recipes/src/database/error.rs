//! What goes wrong with the database: at start-up (`DatabaseError`, the provider's error), and
//! in a request (`http_error`: a sqlx error as the answer the client gets).

use green_tea_http::HttpError;

/// Why the pool could not be built: the provider's error, so `start()` (or the first request)
/// reports it and the next attempt tries again.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DatabaseError {
    /// The URL names neither SQLite nor PostgreSQL.
    #[error("{0}")]
    Url(String),
    /// The SQLite file's directory could not be made.
    #[error("cannot create the database's directory {path}: {source}")]
    Directory {
        /// The directory.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The database could not be reached or opened.
    #[error("cannot connect to the database: {0}")]
    Connect(#[source] sqlx::Error),
    /// A migration failed (or one already applied has changed).
    #[error("the database's migrations failed: {0}")]
    Migrate(#[source] sqlx::migrate::MigrateError),
}

/// A sqlx error in a request, as the answer: the database being out of reach or too busy is
/// 503 JSON with `Retry-After: 1` (no connection within the acquire timeout, a connection lost,
/// PostgreSQL shutting down or out of connections, SQLite's write lock not free within the busy
/// timeout); anything else is 500 JSON. The cause is logged; the client is never told
/// the database's own message.
///
/// ```
/// use green_tea_recipes::database::{http_error, sqlx};
/// let busy = http_error(sqlx::Error::PoolTimedOut);
/// assert_eq!(busy.status(), 503);
/// let broken = http_error(sqlx::Error::RowNotFound);
/// assert_eq!(broken.status(), 500);
/// ```
pub fn http_error(error: sqlx::Error) -> HttpError {
    match out_of_reach(&error) {
        Some(why) => {
            tracing::warn!(%error, "the database is out of reach");
            let message = match why {
                OutOfReach::Busy => "the database is busy; try again",
                OutOfReach::Down => "the database is unavailable; try again",
            };
            HttpError::unavailable(message).with_header("retry-after", "1")
        }
        None => {
            tracing::error!(%error, "a database error");
            HttpError::internal()
        }
    }
}

/// Whether `error` says the database is out of reach or too busy (so trying again later may
/// work), not that a query is wrong.
pub fn is_unavailable(error: &sqlx::Error) -> bool {
    out_of_reach(error).is_some()
}

/// Why the database could not be used.
enum OutOfReach {
    /// Every connection in use, or the write lock held, past the timeouts.
    Busy,
    /// Unreachable, gone, or shutting down.
    Down,
}

fn out_of_reach(error: &sqlx::Error) -> Option<OutOfReach> {
    match error {
        sqlx::Error::PoolTimedOut => Some(OutOfReach::Busy),
        sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => Some(OutOfReach::Down),
        sqlx::Error::Database(db) => {
            if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                // SQLITE_BUSY and SQLITE_LOCKED, with their extended codes: another writer
                // held the lock past the busy timeout.
                let code = db.code().and_then(|c| c.parse::<u32>().ok());
                code.filter(|code| matches!(code & 0xff, 5 | 6))
                    .map(|_| OutOfReach::Busy)
            } else if let Some(postgres) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
            {
                // Class 53 (insufficient resources: too many connections); classes 08
                // (connection exception) and 57P (operator intervention: the server shutting
                // down, crashing, or not yet up).
                let code = postgres.code();
                if code.starts_with("53") {
                    Some(OutOfReach::Busy)
                } else if code.starts_with("08") || code.starts_with("57P") {
                    Some(OutOfReach::Down)
                } else {
                    None
                }
            } else {
                None
            }
        }
        _ => None,
    }
}
