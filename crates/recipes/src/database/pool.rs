//! The pool: `Database` (what the `database` key holds) and `DatabasePool`, its provider, which
//! connects from `databaseSettings`, runs the migrations, and closes the pool on dispose.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use green_tea_core::{AsyncHealthCheck, Check, provider};
use sqlx::any::AnyPoolOptions;
use sqlx::migrate::MigrateDatabase;
use sqlx::{Any, AnyConnection, AnyPool, Executor};

use super::backend::Backend;
use super::error::DatabaseError;
use super::migrations::Migrations;
use super::settings::{DatabaseSettings, Synchronous};

/// The app's database: a bounded pool of connections (sqlx's `AnyPool`, the driver chosen at
/// run time from the URL) and which database it is. What the `database` key holds; cloning it
/// clones a handle to the same pool.
///
/// Handlers read through [`pool`](Self::pool) outside a transaction, and write through the
/// request's [`Transaction`](super::Transaction) (the `tx` key).
#[derive(Clone)]
pub struct Database {
    pool: AnyPool,
    backend: Backend,
    acquire_timeout: Duration,
}

impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the pool's options: they hold the URL, which may hold a password.
        f.debug_struct("Database")
            .field("backend", &self.backend)
            .field("connections", &self.pool.size())
            .field("idle", &self.pool.num_idle())
            .field("closed", &self.pool.is_closed())
            .finish()
    }
}

impl Database {
    /// Connects as `settings` say and applies `migrations`: what the provider does, for a
    /// provider of `database` of your own.
    ///
    /// SQLite: the file (and its directory) is made if missing; every connection sets
    /// `PRAGMA busy_timeout` (waits that long for another writer instead of failing with
    /// "database is locked"), `PRAGMA journal_mode = WAL` (readers never wait on the
    /// writer) and `PRAGMA synchronous` as the settings say; sqlx turns foreign keys on.
    /// PostgreSQL: the server's own settings.
    ///
    /// One connection is opened here, so an unreachable database fails at `start()` rather
    /// than at the first request.
    pub async fn connect(
        settings: &DatabaseSettings,
        migrations: &Migrations,
    ) -> Result<Database, DatabaseError> {
        // The drivers the URL may name; once per process (sqlx's own `Once`).
        sqlx::any::install_default_drivers();
        let url = settings.url.expose();
        let backend = Backend::of_url(url).map_err(DatabaseError::Url)?;
        if backend == Backend::Sqlite {
            create_sqlite_file(url).await?;
        }
        let busy_ms = settings.busy_timeout.as_millis();
        let synchronous = settings.synchronous;
        let pool = AnyPoolOptions::new()
            .max_connections(settings.max_connections)
            .acquire_timeout(settings.acquire_timeout)
            .after_connect(move |connection, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        configure_sqlite(connection, busy_ms, synchronous).await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await
            .map_err(DatabaseError::Connect)?;
        if let Err(error) = migrations.run(&pool, backend).await {
            pool.close().await;
            return Err(DatabaseError::Migrate(error));
        }
        tracing::info!(
            %backend,
            max_connections = settings.max_connections,
            migrations = migrations.len(),
            "database ready"
        );
        Ok(Database {
            pool,
            backend,
            acquire_timeout: settings.acquire_timeout,
        })
    }

    /// The pool, for queries outside the request's transaction (reads):
    /// `sqlx::query("...").fetch_optional(db.pool())`.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Which database it is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// How long an acquire waits for a connection before it fails (`PoolTimedOut`).
    pub fn acquire_timeout(&self) -> Duration {
        self.acquire_timeout
    }

    /// Takes a connection (waiting at most the acquire timeout) and begins a transaction on
    /// it: `BEGIN` on both databases. On SQLite that takes no lock until the first write,
    /// which then waits up to the busy timeout for the write lock. A transaction that writes
    /// first (an insert, an update) needs nothing more. One that reads and then writes may be
    /// refused at its first write if another transaction wrote since it read (SQLite's
    /// `SQLITE_BUSY_SNAPSHOT`: the busy timeout does not help). [`http_error`](super::http_error)
    /// answers that with 503, so the client tries again; or begin with
    /// [`begin_immediate`](Self::begin_immediate).
    ///
    /// Safe to cancel: a request dropped during its begin gives its connection back with no
    /// transaction open.
    pub async fn begin(&self) -> Result<sqlx::Transaction<'static, Any>, sqlx::Error> {
        self.pool.begin().await
    }

    /// Like [`begin`](Self::begin), but on SQLite it is `BEGIN IMMEDIATE`: the write lock is
    /// taken at the begin, waiting up to the busy timeout, so a transaction that reads and
    /// then writes never fails halfway because another wrote in between (SQLite has one
    /// writer). It holds the lock longer (from the begin, not the first write), and costs a
    /// task: sqlx 0.8 is not safe to cancel during a begin statement of one's own (a request
    /// dropped at the wrong moment would give its connection back to the pool inside a
    /// transaction, holding the write lock), so this begin runs to its end in a task of its
    /// own, and a dropped request's transaction is rolled back there. On PostgreSQL, `BEGIN`.
    pub async fn begin_immediate(&self) -> Result<sqlx::Transaction<'static, Any>, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => {
                let pool = self.pool.clone();
                tokio::spawn(async move { pool.begin_with("BEGIN IMMEDIATE").await })
                    .await
                    // The task panicked, or the runtime is shutting down: no transaction.
                    .unwrap_or(Err(sqlx::Error::WorkerCrashed))
            }
            Backend::Postgres => self.pool.begin().await,
        }
    }

    /// `SELECT 1` on a connection of the pool, bounded by the acquire timeout: up with the
    /// pool's size, or down with why. What its [`AsyncHealthCheck`] answers.
    pub async fn ping(&self) -> Check {
        match sqlx::query("SELECT 1").execute(&self.pool).await {
            Ok(_) => Check::up().detail(format!(
                "{}, {} connections ({} idle)",
                self.backend,
                self.pool.size(),
                self.pool.num_idle()
            )),
            Err(error) => Check::down(format!("{}: {error}", self.backend)),
        }
    }

    /// Closes the pool: waits for the connections in use to come back, closes every one;
    /// from then on an acquire fails with `PoolClosed`. What dispose does.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The database's health is its ping: register it with
/// `AppBuilder::async_health_check::<Database>("database")` (and mark `database` critical, so a
/// database that is down makes the app not ready). The app bounds it with its check timeout
/// and keeps its answer for the cache interval, so a storm of probes makes one `SELECT 1`.
impl AsyncHealthCheck for Database {
    async fn check(&self) -> Check {
        self.ping().await
    }
}

/// What every new SQLite connection sets, the busy timeout first: switching to WAL takes a lock
/// that a concurrent first connection may hold.
async fn configure_sqlite(
    connection: &mut AnyConnection,
    busy_ms: u128,
    synchronous: Synchronous,
) -> sqlx::Result<()> {
    connection
        .execute(format!("PRAGMA busy_timeout = {busy_ms}").as_str())
        .await?;
    connection.execute("PRAGMA journal_mode = WAL").await?;
    let synchronous = format!("PRAGMA synchronous = {}", synchronous.pragma());
    connection.execute(synchronous.as_str()).await?;
    Ok(())
}

/// Makes the SQLite file named by `url`, and its directory, if missing (sqlx opens an existing
/// file only, unless the URL says `?mode=rwc`).
async fn create_sqlite_file(url: &str) -> Result<(), DatabaseError> {
    if let Some(dir) = sqlite_path(url).and_then(Path::parent)
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir).map_err(|source| DatabaseError::Directory {
            path: dir.to_owned(),
            source,
        })?;
    }
    let exists = Any::database_exists(url)
        .await
        .map_err(DatabaseError::Connect)?;
    if !exists {
        Any::create_database(url)
            .await
            .map_err(DatabaseError::Connect)?;
    }
    Ok(())
}

/// The file of a `sqlite:` URL, or `None` for an in-memory database.
fn sqlite_path(url: &str) -> Option<&Path> {
    let rest = url.strip_prefix("sqlite:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let path = rest.split('?').next().unwrap_or(rest);
    (!path.is_empty() && path != ":memory:").then(|| Path::new(path))
}

/// The `database` provider: a [`Database`] from `databaseSettings`, with the application's
/// migrations applied when it is built (at `start()`, or at the first request that needs it).
/// Its dispose closes the pool, after the drain (`close()` disposes dependents first, so after
/// everything that needs `database`).
///
/// ```
/// use green_tea_recipes::database::{DatabasePool, Migration, Migrations};
/// let pool = DatabasePool::new(Migrations::new().with(Migration::new(
///     1,
///     "notes",
///     "CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT NOT NULL)",
/// )));
/// # let _ = pool;
/// ```
#[derive(Debug, Default)]
pub struct DatabasePool {
    migrations: Migrations,
}

#[provider(provides = "database", needs = ["databaseSettings"], discover = false)]
impl DatabasePool {
    async fn provide(&self, settings: &DatabaseSettings) -> Result<Database, DatabaseError> {
        Database::connect(settings, &self.migrations).await
    }

    async fn dispose(&self, database: &Database) {
        database.close().await;
    }

    /// The settings' `build_timeout`: connecting and migrating, past it the build fails.
    fn build_timeout(&self, settings: &DatabaseSettings) -> Duration {
        settings.build_timeout
    }
}

impl DatabasePool {
    /// The provider, applying `migrations`.
    pub fn new(migrations: Migrations) -> Self {
        DatabasePool { migrations }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sqlite_url_names_its_file() {
        assert_eq!(
            sqlite_path("sqlite://data/app.db"),
            Some(Path::new("data/app.db"))
        );
        assert_eq!(
            sqlite_path("sqlite:///var/lib/app.db?mode=rwc"),
            Some(Path::new("/var/lib/app.db"))
        );
        assert_eq!(sqlite_path("sqlite::memory:"), None);
        assert_eq!(sqlite_path("sqlite://:memory:"), None);
        assert_eq!(sqlite_path("postgres://db/app"), None);
    }

    /// The guide's promise: no database setting reloads, so that a reload never holds two
    /// pools at once.
    #[test]
    fn no_database_setting_reloads() {
        use green_tea_core::settings::Settings;
        let fields = super::super::settings::DatabaseSettings::fields();
        assert!(!fields.is_empty());
        assert!(fields.iter().all(|field| !field.reload), "{fields:?}");
    }
}
