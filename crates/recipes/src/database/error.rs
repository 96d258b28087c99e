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

/// A sqlx error in a request, as the answer: the database being out of reach is 503 JSON
/// (no connection within the acquire timeout, a connection lost, PostgreSQL shutting down), with
/// `Retry-After: 1`; anything else is 500 JSON. The cause is logged; the client is never told
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
    if is_unavailable(&error) {
        tracing::warn!(%error, "the database is out of reach");
        let message = match error {
            sqlx::Error::PoolTimedOut => "the database is busy; try again",
            _ => "the database is unavailable; try again",
        };
        HttpError::unavailable(message).with_header("retry-after", "1")
    } else {
        tracing::error!(%error, "a database error");
        HttpError::internal()
    }
}

/// Whether `error` says the database is out of reach (so trying again later may work), not
/// that a query is wrong.
pub fn is_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        // PostgreSQL's classes 08 (connection exception) and 57P (operator intervention: the
        // server shutting down, crashing, or not yet up).
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|code| code.starts_with("08") || code.starts_with("57P")),
        _ => false,
    }
}
