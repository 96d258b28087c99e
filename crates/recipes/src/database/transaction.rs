//! The request's unit of work: `TransactionStep` begins a transaction per request (the `tx`
//! key); its value, a `Transaction`, commits when the request succeeds and rolls back otherwise,
//! through its finish hook, before the response head is sent.

use std::borrow::Cow;
use std::fmt;

use green_tea_core::{Descriptor, Key, Location, Needs, Provided};
use green_tea_http::{Finish, Finishing, HttpError, Outcome, Step, StepFuture};
use http::request::Parts;
use sqlx::{Any, AnyConnection};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use super::backend::Backend;
use super::error::http_error;
use super::pool::Database;

/// One request's transaction: what the `tx` key holds.
///
/// sqlx runs a query on `&mut` a connection, while the graph shares values (`&T`, `Arc<T>`), so
/// the transaction sits behind a `tokio::sync::Mutex` and a handler takes it with
/// [`lock`](Self::lock): `.execute(&mut *tx.lock().await)`. The lock is the request's own: no
/// other request can see it, so it is never contended unless the handler itself runs queries
/// concurrently (they then take turns, as they must on one connection).
///
/// When the request is answered, the transaction finishes ([`Finish`]): it commits if the
/// request succeeded (`Outcome::is_success`: a status below 400, nothing panicked, no later
/// finish failed) and rolls back otherwise. A commit that fails answers 500 JSON in place of
/// the handler's answer, so a client is never told 201 for a write that did not happen.
///
/// A guard (or a clone of the `Arc`) kept past the handler's end, by a task it spawned, means
/// the value is still held when its finish comes: it cannot be taken back, so it is neither
/// committed nor finished, the request is answered 500, and the transaction rolls back when its
/// last holder drops it.
pub struct Transaction {
    inner: Mutex<sqlx::Transaction<'static, Any>>,
    backend: Backend,
}

impl fmt::Debug for Transaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transaction")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Transaction {
    /// Wraps `transaction` (begun on a `backend` database): for a step of your own.
    pub fn new(transaction: sqlx::Transaction<'static, Any>, backend: Backend) -> Self {
        Transaction {
            inner: Mutex::new(transaction),
            backend,
        }
    }

    /// The transaction's connection, for a query: `sqlx::query("...").execute(&mut *tx.lock()
    /// .await)`. Drop the guard before the next `lock` (a statement's end does: the guard is a
    /// temporary).
    pub async fn lock(&self) -> MappedMutexGuard<'_, AnyConnection> {
        MutexGuard::map(self.inner.lock().await, |transaction| &mut **transaction)
    }

    /// Which database it runs on, for SQL that differs between them.
    pub fn backend(&self) -> Backend {
        self.backend
    }
}

impl Finish for Transaction {
    /// Commits on success; rolls back otherwise. A failed commit answers 500 JSON (its cause
    /// logged); a failed rollback is logged and leaves the answer as it was (nothing was
    /// committed, and the connection is dropped rather than reused).
    async fn finish(self, outcome: &Outcome) -> Result<(), HttpError> {
        let transaction = self.inner.into_inner();
        if outcome.is_success() {
            transaction.commit().await.map_err(|error| {
                tracing::error!(%error, status = outcome.status().as_u16(), "the commit failed");
                HttpError::internal()
            })
        } else {
            if let Err(error) = transaction.rollback().await {
                tracing::warn!(%error, status = outcome.status().as_u16(), "the rollback failed");
            }
            Ok(())
        }
    }
}

/// The step that begins each request's [`Transaction`]: provides `tx`, needs `database`, and
/// finishes (commit or roll back) when the request is answered. A route runs it when its
/// handler needs `tx`; a route that does not pays nothing.
///
/// A begin that gets no connection within the pool's acquire timeout, or finds the database
/// down, rejects the request with 503 JSON and `Retry-After: 1` (see
/// [`http_error`](super::http_error)); the handler does not run.
///
/// ```
/// use green_tea_http::Step;
/// use green_tea_recipes::database::TransactionStep;
/// let step = TransactionStep::new();
/// assert_eq!(step.descriptor().name, "tx");
/// assert!(!step.finishing().is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct TransactionStep {
    name: Cow<'static, str>,
    provides: Key,
    database: Key,
    /// Whether it begins with [`Database::begin_immediate`] rather than [`Database::begin`].
    immediate: bool,
    /// Where it was made: what `explain` and build errors point at.
    location: Location,
}

impl Default for TransactionStep {
    #[track_caller]
    fn default() -> Self {
        TransactionStep::new()
    }
}

impl TransactionStep {
    /// `tx`, from `database`.
    #[track_caller]
    pub fn new() -> Self {
        TransactionStep::with_keys("tx", "database")
    }

    /// `provides`, from the pool at `database`: a second database's transactions, say.
    #[track_caller]
    pub fn with_keys(provides: &'static str, database: &'static str) -> Self {
        TransactionStep {
            name: Cow::Borrowed(provides),
            provides: Key::from(provides),
            database: Key::from(database),
            immediate: false,
            location: Location::caller(),
        }
    }

    /// Begins each transaction with [`Database::begin_immediate`]: on SQLite, `BEGIN
    /// IMMEDIATE`, which takes the write lock at the begin (for handlers that read, then
    /// write, under concurrent writers). The default, [`Database::begin`], takes it at the
    /// first write.
    ///
    /// ```
    /// use green_tea_recipes::database::TransactionStep;
    /// let step = TransactionStep::with_keys("txImmediate", "database").immediate();
    /// assert!(step.is_immediate());
    /// assert!(!TransactionStep::new().is_immediate());
    /// ```
    pub fn immediate(mut self) -> Self {
        self.immediate = true;
        self
    }

    /// Whether it begins with [`Database::begin_immediate`].
    pub fn is_immediate(&self) -> bool {
        self.immediate
    }
}

impl Step for TransactionStep {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new(self.name.clone())
            .at(self.location)
            .provides::<Transaction>(self.provides.clone())
            .needs::<Database>(self.database.clone())
    }

    fn run<'a>(&'a self, _parts: &'a mut Parts, needs: Needs<'a>) -> StepFuture<'a> {
        let database = match needs.get::<Database>(0) {
            Ok(database) => database,
            Err(error) => {
                tracing::error!(%error, "the transaction step has no database");
                return StepFuture::ready(Err(HttpError::internal().into()));
            }
        };
        let immediate = self.immediate;
        StepFuture::new(async move {
            let begun = if immediate {
                database.begin_immediate().await
            } else {
                database.begin().await
            };
            match begun {
                Ok(transaction) => Ok(Provided::one(Transaction::new(
                    transaction,
                    database.backend(),
                ))),
                Err(error) => Err(http_error(error).into()),
            }
        })
    }

    fn finishing(&self) -> Finishing {
        Finishing::none().value::<Transaction>(0)
    }
}
