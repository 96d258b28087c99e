//! A database (feature `sqlx`): a pool built once with its migrations, a transaction per request
//! that commits when the request succeeds and rolls back otherwise, and an async health check.
//! SQLite is the default (bundled: nothing to install); PostgreSQL when the URL says so.
//!
//! - [`DatabaseSettings`] (`databaseSettings`, the `DATABASE_*` variables): the URL, the pool's
//!   bound and its acquire timeout, SQLite's busy timeout.
//! - [`DatabasePool`] provides `database`, a [`Database`]: connects, applies the
//!   [`Migrations`] (at `start()`), closes the pool on dispose; [`Database::ping`] is its
//!   health (`SELECT 1`).
//! - [`TransactionStep`] provides `tx`, a [`Transaction`], for each request whose handler
//!   needs it; its finish hook commits or rolls back with the request's outcome, before the
//!   response head is sent.
//! - [`OutboxRelay`], a worker, delivers the events requests wrote to an outbox table in their
//!   transactions to an [`OutboxSink`] (`outboxSink`, a [`SharedSink`]), at least once, in id
//!   order within an instance's round (not across instances), restarting with a backoff when
//!   the database or the sink fails; [`OutboxSettings`] (`outboxSettings`, the `OUTBOX_*`
//!   variables) is how long it waits when there is nothing to deliver and how many events a
//!   round takes.
//!
//! The pool is sqlx's `Any`: the driver is picked at run time from the URL, so one build serves
//! SQLite in development and PostgreSQL in production from `DATABASE_URL` alone. The price is
//! `Any`'s smaller set of column types (integers, floats, text, bytes, booleans: store times as
//! integers or text) and SQL written for both dialects (`$1` placeholders work on both; where
//! they differ, [`Migration::per_backend`] and [`Transaction::backend`]). An application that
//! only ever uses one database can still use these types: the URL decides.
//!
//! Queries are sqlx's runtime-checked `sqlx::query(...)` (re-exported as [`sqlx`]): the
//! compile-time checked `query!` needs a live database or a prepared cache at build time, which
//! this recipe does not ask of a plain `cargo build`.

mod backend;
mod error;
mod migrations;
mod outbox;
mod pool;
mod settings;
mod transaction;

pub use backend::Backend;
pub use error::{DatabaseError, http_error, is_unavailable};
pub use migrations::{Migration, Migrations};
pub use outbox::{
    OutboxEvent, OutboxRelay, OutboxSettings, OutboxSink, OutboxTableError, SharedSink,
};
pub use pool::{Database, DatabasePool};
pub use settings::{DatabaseSettings, Synchronous};
pub use transaction::{Transaction, TransactionStep};

/// The sqlx this recipe is built on, so that queries use the same version:
/// `green_tea_recipes::database::sqlx::query(...)`. Not its `FromRow` derive: that needs sqlx
/// among the application's own dependencies, with `features = ["derive"]` (cargo unifies it
/// with this one); the guide's "A row type" shows it.
pub use sqlx;
