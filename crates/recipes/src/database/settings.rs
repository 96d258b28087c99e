//! `DatabaseSettings`: where the database is and how the pool is bounded, read at `build()` as
//! the settings key `databaseSettings` (`DATABASE_*` variables, or the file's `[database]`).

use std::time::Duration;

use green_tea_core::Settings;
use green_tea_core::settings::Secret;

use super::backend::Backend;

/// The database's settings: `DATABASE_URL`, `DATABASE_MAX_CONNECTIONS`,
/// `DATABASE_ACQUIRE_TIMEOUT`, `DATABASE_BUSY_TIMEOUT`, `DATABASE_SYNCHRONOUS` and
/// `DATABASE_BUILD_TIMEOUT` (or `url`, `max_connections`, `acquire_timeout`, `busy_timeout`,
/// `synchronous`, `build_timeout` in the file's `[database]` table). Register `DatabaseSettings::provider()`; the pool
/// ([`DatabasePool`](super::DatabasePool)) needs it.
///
/// The URL is a secret (a PostgreSQL URL may hold a password): it is `***` wherever settings
/// are shown.
///
/// ```
/// use std::time::Duration;
/// use green_tea_core::Container;
/// use green_tea_core::settings::{Settings, Sources};
/// use green_tea_recipes::database::{DatabaseSettings, Synchronous};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .settings(Sources::from_env_map([("DATABASE_ACQUIRE_TIMEOUT", "2s")]))
///     .provider(DatabaseSettings::provider())
///     .build()
///     .unwrap();
/// let database = container.get::<DatabaseSettings>("databaseSettings").await.unwrap();
/// assert_eq!(database.url.expose(), "sqlite://data/app.db"); // the default
/// assert_eq!(database.max_connections, 10);
/// assert_eq!(database.acquire_timeout, Duration::from_secs(2));
/// assert_eq!(database.synchronous, Synchronous::Full); // SQLite's own default
/// # container.close().await.unwrap(); }
/// ```
#[derive(Settings, Clone, Debug, PartialEq, Eq)]
#[settings(
    provides = "databaseSettings",
    prefix = "DATABASE",
    validate = DatabaseSettings::check,
    discover = false
)]
pub struct DatabaseSettings {
    /// Where the database is: `sqlite://path/to/file.db` (the file and its directory are
    /// created if missing) or `postgres://user:password@host:port/name`: `DATABASE_URL`
    /// (default `sqlite://data/app.db`, a file under `data/` in the working directory).
    #[settings(default = "sqlite://data/app.db")]
    pub url: Secret<String>,
    /// The most connections the pool opens, at least 1: `DATABASE_MAX_CONNECTIONS` (default
    /// 10).
    #[settings(default = "10")]
    pub max_connections: u32,
    /// How long a request waits for a connection before it is answered 503:
    /// `DATABASE_ACQUIRE_TIMEOUT` (default `5s`). It also bounds connecting, so a database
    /// that is down answers within it too.
    #[settings(default = "5s")]
    pub acquire_timeout: Duration,
    /// SQLite only: how long a connection waits for another's write lock before failing with
    /// "database is locked": `DATABASE_BUSY_TIMEOUT` (default `5s`).
    #[settings(default = "5s")]
    pub busy_timeout: Duration,
    /// SQLite only: how hard a commit makes sure it is on disk (`PRAGMA synchronous`, set on
    /// every connection): `DATABASE_SYNCHRONOUS`, one of `off`, `normal`, `full`, `extra`
    /// (default `full`, SQLite's own).
    #[settings(default = "full")]
    pub synchronous: Synchronous,
    /// How long the pool's build may take, connecting and applying the migrations:
    /// `DATABASE_BUILD_TIMEOUT` (default `60s`). It is the `database` provider's build timeout,
    /// in place of the app's (`.build_timeout(d)`, 30 s by default): migrations can run long,
    /// and one waiting on another instance's lock must still end, naming the pool, within the
    /// start's budget.
    #[settings(default = "60s")]
    pub build_timeout: Duration,
}

/// SQLite's `PRAGMA synchronous`, with the pool in WAL mode: what a commit waits for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Synchronous {
    /// Never waits for the disk: a crash of the operating system or a power loss can corrupt
    /// the database. For throwaway data only.
    Off,
    /// The WAL is synced at checkpoints, not at each commit: a commit survives the process
    /// crashing, but the last commits before a power loss or an operating-system crash can be
    /// rolled back (the database stays consistent). SQLite's advice for WAL mode where
    /// throughput matters more than the last commits.
    Normal,
    /// Each commit waits for the WAL to reach the disk (an fsync): durable through a power
    /// loss. SQLite's default.
    #[default]
    Full,
    /// As `Full`, and the directory synced too after a commit that deletes a journal.
    Extra,
}

impl Synchronous {
    /// The pragma's value.
    pub(crate) fn pragma(self) -> &'static str {
        match self {
            Synchronous::Off => "OFF",
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
            Synchronous::Extra => "EXTRA",
        }
    }
}

impl DatabaseSettings {
    /// These settings for `url`, with every other value its default: for tests and for
    /// providers of `databaseSettings` of your own.
    ///
    /// ```
    /// use green_tea_recipes::database::DatabaseSettings;
    /// let settings = DatabaseSettings::for_url("postgres://127.0.0.1:5432/shop");
    /// assert_eq!(settings.max_connections, 10);
    /// ```
    pub fn for_url(url: impl Into<String>) -> Self {
        DatabaseSettings {
            url: Secret::new(url.into()),
            max_connections: 10,
            acquire_timeout: Duration::from_secs(5),
            busy_timeout: Duration::from_secs(5),
            synchronous: Synchronous::Full,
            build_timeout: Duration::from_secs(60),
        }
    }

    /// Which database the URL names.
    pub fn backend(&self) -> Result<Backend, String> {
        Backend::of_url(self.url.expose())
    }

    /// Refused at `build()` rather than at the first connection: a URL of neither database, an
    /// empty pool, a zero acquire timeout (every request would be refused).
    fn check(&self) -> Result<(), String> {
        self.backend()?;
        if self.max_connections == 0 {
            return Err("`max_connections` is zero: no request could get a connection".to_owned());
        }
        if self.acquire_timeout.is_zero() {
            return Err(
                "`acquire_timeout` is zero: every request would be refused a connection".to_owned(),
            );
        }
        if self.build_timeout.is_zero() {
            return Err("`build_timeout` is zero: the pool could never be built".to_owned());
        }
        Ok(())
    }
}
