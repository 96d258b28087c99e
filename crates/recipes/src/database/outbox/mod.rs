//! The outbox relay: a worker that hands on, in order, the events a request wrote to the
//! outbox table in its own transaction, and marks each delivered. The transactional outbox
//! pattern: the order and its event are committed together or not at all, and the relay
//! delivers every committed event at least once, whatever crashed in between.
//!
//! The relay here; what it delivers and where in `sink.rs`; what its runs read from settings in
//! `settings.rs`.

mod settings;
mod sink;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use green_tea_core::workers::{Backoff, Restart, Shutdown, Worker, WorkerFuture, WorkerOptions};
use green_tea_core::{BoxError, Descriptor, Key, Needs, Settings};

use super::backend::Backend;
use super::pool::Database;

pub use settings::OutboxSettings;
pub use sink::{OutboxEvent, OutboxSink, SharedSink};

/// The outbox relay worker. Needs `database` (a [`Database`]), `outboxSink` (a
/// [`SharedSink`]) and `outboxSettings` (its [`OutboxSettings`]), or the keys
/// [`with_keys`](Self::with_keys) names for the first two.
///
/// Each round it takes the undelivered events of the lowest ids (up to the settings'
/// `batch`, `OUTBOX_BATCH`), delivers them in id order and marks each delivered
/// (`delivered_at`, Unix milliseconds); with nothing to deliver it waits the settings'
/// `interval` (`OUTBOX_INTERVAL`), or its shutdown. A delivery that fails ends the round (the
/// events before it are marked) and fails the run, as a database that is down does: the
/// worker is restarted after a backoff of 100 ms doubling to 5 s ([`Restart::OnFailure`],
/// [`backoff`](Self::backoff)) and delivers the rest then. It is not
/// [`critical`](Self::critical) unless marked so. On PostgreSQL a round is one
/// transaction whose rows are taken `FOR UPDATE SKIP LOCKED`, so two instances' relays never
/// take the same event at once. On SQLite, where a write transaction holds the database's one
/// write lock (and every request's first write would wait on the deliveries), the rows
/// are read outside any transaction and marked in a short one after: two processes relaying
/// one SQLite file may both deliver an event (at least once still holds).
///
/// The order is the ids' among the events committed when a round looks: a transaction that
/// took an id early and commits late (PostgreSQL hands identities out as transactions ask)
/// has its event delivered after a higher id's. A consumer that needs a strict order per
/// subject orders by the payload's own sequence.
///
/// The table is the application's (its migration makes it):
/// `outbox (id <identity>, topic TEXT, payload TEXT, delivered_at BIGINT NULL)`, other columns
/// as the application likes; [`table`](Self::table) names another.
///
/// A shutdown during a round lets the round finish (its events are delivered and marked, or
/// the round fails and they are delivered by the next run, of this instance or another), then
/// the worker returns; a round longer than the worker stop timeout is aborted, its marks not
/// committed, and its events delivered again by the next run.
#[derive(Clone, Debug)]
pub struct OutboxRelay {
    name: &'static str,
    database: Key,
    sink: Key,
    table: String,
    backoff: Backoff,
    critical: bool,
    location: green_tea_core::Location,
}

impl OutboxRelay {
    /// The relay `outbox_relay`, on `database` and `outboxSink`, of the table `outbox`, with
    /// its `outboxSettings`; restarted after a failure, not critical.
    #[track_caller]
    pub fn new() -> Self {
        OutboxRelay {
            name: "outbox_relay",
            database: Key::from("database"),
            sink: Key::from("outboxSink"),
            table: "outbox".to_owned(),
            backoff: Backoff::new(Duration::from_millis(100), Duration::from_secs(5)),
            critical: false,
            location: green_tea_core::Location::caller(),
        }
    }

    /// Needs the database and the sink under other keys.
    pub fn with_keys(mut self, database: impl Into<Key>, sink: impl Into<Key>) -> Self {
        self.database = database.into();
        self.sink = sink.into();
        self
    }

    /// Relays the outbox table `table`: a plain SQL name (an ASCII letter or `_`, then
    /// letters, digits or `_`, at most 63 of them), or an error naming it, rather than SQL
    /// that fails on every round.
    ///
    /// ```
    /// use green_tea_recipes::database::OutboxRelay;
    /// assert!(OutboxRelay::new().table("order_events").is_ok());
    /// let error = OutboxRelay::new().table("events; DROP TABLE orders").unwrap_err();
    /// assert!(error.to_string().starts_with("the outbox table `events; DROP TABLE orders`"));
    /// ```
    pub fn table(mut self, table: impl Into<String>) -> Result<Self, OutboxTableError> {
        let table = table.into();
        let mut chars = table.chars();
        let plain = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
            && table.len() <= 63;
        if !plain {
            return Err(OutboxTableError { table });
        }
        self.table = table;
        Ok(self)
    }

    /// The backoff between failed runs.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Critical: the app is not ready while the relay is not running (failed, or waiting to
    /// restart after a failure), as [`WorkerOptions::critical`] makes any worker. For an app
    /// whose requests must not pile up events no one delivers.
    ///
    /// ```
    /// use green_tea_core::workers::Worker;
    /// use green_tea_recipes::database::OutboxRelay;
    /// assert!(!OutboxRelay::new().options().critical);
    /// assert!(OutboxRelay::new().critical().options().critical);
    /// ```
    pub fn critical(mut self) -> Self {
        self.critical = true;
        self
    }
}

/// A name [`OutboxRelay::table`] refuses: not a plain SQL name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the outbox table `{table}` is not a plain SQL name: an ASCII letter or `_`, then letters, \
     digits or `_`, at most 63"
)]
pub struct OutboxTableError {
    /// The name as given.
    pub table: String,
}

impl Default for OutboxRelay {
    #[track_caller]
    fn default() -> Self {
        OutboxRelay::new()
    }
}

impl Worker for OutboxRelay {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new(self.name)
            .at(self.location)
            .needs::<Database>(self.database.clone())
            .needs::<SharedSink>(self.sink.clone())
            .needs::<OutboxSettings>(OutboxSettings::KEY)
    }

    fn options(&self) -> WorkerOptions {
        let options = WorkerOptions::default().restart(Restart::OnFailure(self.backoff));
        match self.critical {
            true => options.critical(),
            false => options,
        }
    }

    fn run(&self, needs: Needs<'static>, shutdown: Shutdown) -> WorkerFuture {
        let relay = self.clone();
        Box::pin(async move {
            let database = needs.get::<Database>(0)?;
            let sink = needs.get::<SharedSink>(1)?;
            let settings = needs.get::<OutboxSettings>(2)?;
            loop {
                if shutdown.is_requested() {
                    return Ok(());
                }
                let delivered = relay.round(&database, &sink, settings.batch).await?;
                if delivered == 0 {
                    tracing::trace!(interval = ?settings.interval, "outbox empty: waiting");
                    tokio::select! {
                        () = tokio::time::sleep(settings.interval) => {}
                        () = shutdown.requested() => return Ok(()),
                    }
                }
            }
        })
    }
}

impl OutboxRelay {
    /// One round: the undelivered events of the lowest ids, delivered in order and marked.
    /// Returns how many it delivered; a delivery that fails ends the round with its error,
    /// the events before it marked.
    async fn round(
        &self,
        database: &Database,
        sink: &SharedSink,
        batch: u32,
    ) -> Result<usize, BoxError> {
        let select = format!(
            "SELECT id, topic, payload FROM {} WHERE delivered_at IS NULL ORDER BY id LIMIT {}",
            self.table,
            batch.max(1)
        );
        match database.backend() {
            Backend::Postgres => {
                let mut tx = database.begin().await?;
                let rows: Vec<(i64, String, String)> =
                    sqlx::query_as(&format!("{select} FOR UPDATE SKIP LOCKED"))
                        .fetch_all(&mut *tx)
                        .await?;
                let (delivered, failed) = deliver(sink, rows).await;
                self.mark(&mut tx, &delivered).await?;
                tx.commit().await?;
                finish_round(delivered.len(), failed)
            }
            Backend::Sqlite => {
                let rows: Vec<(i64, String, String)> =
                    sqlx::query_as(&select).fetch_all(database.pool()).await?;
                let (delivered, failed) = deliver(sink, rows).await;
                if !delivered.is_empty() {
                    let mut tx = database.begin().await?;
                    self.mark(&mut tx, &delivered).await?;
                    tx.commit().await?;
                }
                finish_round(delivered.len(), failed)
            }
        }
    }

    /// Marks `ids` delivered, now.
    async fn mark(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Any>,
        ids: &[i64],
    ) -> Result<(), sqlx::Error> {
        let now = i64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_millis(),
        )
        .unwrap_or(i64::MAX);
        let update = format!("UPDATE {} SET delivered_at = $1 WHERE id = $2", self.table);
        for id in ids {
            sqlx::query(&update)
                .bind(now)
                .bind(*id)
                .execute(&mut **tx)
                .await?;
        }
        Ok(())
    }
}

/// Delivers `rows` in order until one fails: the ids delivered, and the failure if any.
async fn deliver(
    sink: &SharedSink,
    rows: Vec<(i64, String, String)>,
) -> (Vec<i64>, Option<BoxError>) {
    let mut delivered = Vec::with_capacity(rows.len());
    for (id, topic, payload) in rows {
        let event = OutboxEvent { id, topic, payload };
        if let Err(error) = sink.deliver(&event).await {
            return (delivered, Some(error));
        }
        delivered.push(id);
    }
    (delivered, None)
}

fn finish_round(delivered: usize, failed: Option<BoxError>) -> Result<usize, BoxError> {
    if delivered > 0 {
        tracing::debug!(delivered, "outbox relayed");
    }
    match failed {
        Some(error) => Err(error),
        None => Ok(delivered),
    }
}
