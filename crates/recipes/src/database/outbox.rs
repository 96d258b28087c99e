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
/// Each round it takes the undelivered events of the lowest ids (up to [`batch`](Self::batch))
/// in a transaction of its own, delivers them in id order, marks each delivered (`delivered_at`, Unix
/// milliseconds), and commits; with nothing to deliver it waits [`every`](Self::every), or its
/// shutdown. A round that fails (the database is down, the sink refuses) fails the run: its
/// transaction rolls back, nothing is marked, and the worker is restarted after a backoff of
/// 100 ms doubling to 5 s ([`Restart::OnFailure`]). On PostgreSQL the rows are taken
/// `FOR UPDATE SKIP LOCKED`, so two instances' relays never take the same event; on SQLite the
/// round's write lock (`BEGIN IMMEDIATE`) does the same.
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
/// the worker returns.
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

    /// Relays the outbox table `table` (a plain SQL name: letters, digits, `_`).
    pub fn table(mut self, table: impl Into<String>) -> Self {
        self.table = table.into();
        self
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
            if !relay
                .table
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return Err(
                    format!("the outbox table `{}` is not a plain name", relay.table).into(),
                );
            }
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
    /// One round: the oldest undelivered events, delivered and marked in one transaction.
    /// Returns how many it delivered.
    async fn round(&self, database: &Database, sink: &dyn OutboxSink) -> Result<usize, BoxError> {
        let table = &self.table;
        let lock = match database.backend() {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let mut tx = database.begin().await?;
        let rows: Vec<(i64, String, String)> = sqlx::query_as(&format!(
            "SELECT id, topic, payload FROM {table} WHERE delivered_at IS NULL \
             ORDER BY id LIMIT {}{lock}",
            self.batch
        ))
        .fetch_all(&mut *tx)
        .await?;
        let now = i64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_millis(),
        )
        .unwrap_or(i64::MAX);
        for (id, topic, payload) in &rows {
            let event = OutboxEvent {
                id: *id,
                topic: topic.clone(),
                payload: payload.clone(),
            };
            sink.deliver(&event).await?;
            sqlx::query(&format!(
                "UPDATE {table} SET delivered_at = $1 WHERE id = $2"
            ))
            .bind(now)
            .bind(*id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        if !rows.is_empty() {
            tracing::debug!(delivered = rows.len(), "outbox relayed");
        }
        Ok(rows.len())
    }
}
