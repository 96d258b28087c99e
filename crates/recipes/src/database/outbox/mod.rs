//! The outbox relay: a worker that hands on, in order, the events a request wrote to the
//! outbox table in its own transaction, and marks each delivered. The transactional outbox
//! pattern: the order and its event are committed together or not at all, and the relay
//! delivers every committed event at least once, whatever crashed in between.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use green_tea_core::workers::{Backoff, Restart, Shutdown, Worker, WorkerFuture, WorkerOptions};
use green_tea_core::{BoxError, Descriptor, Key, Needs};

use super::pool::{Backend, Database};

/// One event of the outbox, as the relay hands it on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxEvent {
    /// Its row's id: events are delivered in its order.
    pub id: i64,
    /// What it is about (`order.created`).
    pub topic: String,
    /// Its payload, as the request wrote it (JSON, usually).
    pub payload: String,
}

/// Where the relay delivers: a broker's producer, a webhook, a fake in tests. The app provides
/// one under the relay's sink key (`outboxSink`), as an `Arc<dyn OutboxSink>`.
///
/// An error leaves the event undelivered: the relay's run fails and is restarted after its
/// backoff, and the event is delivered again then (at least once: a sink that must not see an
/// event twice keeps the ids it has seen).
pub trait OutboxSink: Send + Sync + 'static {
    /// Delivers `event`.
    fn deliver<'a>(
        &'a self,
        event: &'a OutboxEvent,
    ) -> Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send + 'a>>;
}

/// The outbox relay worker. Needs `database` (a [`Database`]) and `outboxSink` (an
/// `Arc<dyn OutboxSink>`), or the keys [`with_keys`](Self::with_keys) names.
///
/// Each round it takes the undelivered events of the lowest ids (up to [`batch`](Self::batch)),
/// delivers them in id order and marks each delivered (`delivered_at`, Unix milliseconds);
/// with nothing to deliver it waits [`every`](Self::every), or its shutdown. A delivery that
/// fails ends the round (the events before it are marked) and fails the run, as a database
/// that is down does: the worker is restarted after a backoff of 100 ms doubling to 5 s
/// ([`Restart::OnFailure`]) and delivers the rest then. On PostgreSQL a round is one
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
    batch: u32,
    every: Duration,
    backoff: Backoff,
    location: green_tea_core::Location,
}

impl OutboxRelay {
    /// The relay `outbox_relay`, on `database` and `outboxSink`, of the table `outbox`, 100
    /// events a round, polling every 200 ms when there is nothing to deliver.
    #[track_caller]
    pub fn new() -> Self {
        OutboxRelay {
            name: "outbox_relay",
            database: Key::from("database"),
            sink: Key::from("outboxSink"),
            table: "outbox".to_owned(),
            batch: 100,
            every: Duration::from_millis(200),
            backoff: Backoff::new(Duration::from_millis(100), Duration::from_secs(5)),
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

    /// At most `batch` events a round (at least 1).
    pub fn batch(mut self, batch: u32) -> Self {
        self.batch = batch.max(1);
        self
    }

    /// How long it waits when there is nothing to deliver.
    pub fn every(mut self, every: Duration) -> Self {
        self.every = every;
        self
    }

    /// The backoff between failed runs.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
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
            .needs::<Arc<dyn OutboxSink>>(self.sink.clone())
    }

    fn options(&self) -> WorkerOptions {
        WorkerOptions::default().restart(Restart::OnFailure(self.backoff))
    }

    fn run(&self, needs: Needs<'static>, shutdown: Shutdown) -> WorkerFuture {
        let relay = self.clone();
        Box::pin(async move {
            let database = needs.get::<Database>(0)?;
            let sink = needs.get::<Arc<dyn OutboxSink>>(1)?;
            loop {
                if shutdown.is_requested() {
                    return Ok(());
                }
                let delivered = relay.round(&database, &**sink).await?;
                if delivered == 0 {
                    tokio::select! {
                        () = tokio::time::sleep(relay.every) => {}
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
    async fn round(&self, database: &Database, sink: &dyn OutboxSink) -> Result<usize, BoxError> {
        let select = format!(
            "SELECT id, topic, payload FROM {} WHERE delivered_at IS NULL ORDER BY id LIMIT {}",
            self.table, self.batch
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
    sink: &dyn OutboxSink,
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
