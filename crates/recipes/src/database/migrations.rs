//! The schema's migrations: written in the application (no directory read at run time), one SQL
//! text for both databases or one for each, applied in version order when the pool is built.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;

use sqlx::migrate::{MigrationSource, MigrationType};

use super::backend::Backend;

/// One migration: a version (applied in increasing order, once), a description, and its SQL
/// for each database. Several statements may be given, separated by `;`.
///
/// sqlx records each applied version with a checksum of its SQL in `_sqlx_migrations`: a
/// migration already applied must not change (start-up fails if it does); add a new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    version: i64,
    description: Cow<'static, str>,
    sqlite: Cow<'static, str>,
    postgres: Cow<'static, str>,
}

impl Migration {
    /// The same SQL on SQLite and PostgreSQL.
    pub fn new(
        version: i64,
        description: impl Into<Cow<'static, str>>,
        sql: impl Into<Cow<'static, str>>,
    ) -> Self {
        let sql = sql.into();
        Migration {
            version,
            description: description.into(),
            sqlite: sql.clone(),
            postgres: sql,
        }
    }

    /// SQL of each database's dialect: where they differ, as an identity column does
    /// (`INTEGER PRIMARY KEY` on SQLite, `BIGINT GENERATED ALWAYS AS IDENTITY` on
    /// PostgreSQL).
    pub fn per_backend(
        version: i64,
        description: impl Into<Cow<'static, str>>,
        sqlite: impl Into<Cow<'static, str>>,
        postgres: impl Into<Cow<'static, str>>,
    ) -> Self {
        Migration {
            version,
            description: description.into(),
            sqlite: sqlite.into(),
            postgres: postgres.into(),
        }
    }

    /// Its version.
    pub fn version(&self) -> i64 {
        self.version
    }

    /// Its SQL on `backend`.
    pub fn sql(&self, backend: Backend) -> &str {
        match backend {
            Backend::Sqlite => &self.sqlite,
            Backend::Postgres => &self.postgres,
        }
    }
}

/// The schema's migrations, applied by the pool's provider when it is built (so at `start()`,
/// before the first request), in version order; those already applied are skipped.
///
/// ```
/// use green_tea_recipes::database::{Migration, Migrations};
/// let migrations = Migrations::new()
///     .with(Migration::per_backend(
///         1,
///         "notes",
///         "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
///         "CREATE TABLE notes (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body TEXT NOT NULL)",
///     ))
///     .with(Migration::new(2, "notes' author", "ALTER TABLE notes ADD COLUMN author TEXT"));
/// assert_eq!(migrations.len(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Migrations {
    list: Vec<Migration>,
}

impl Migrations {
    /// None yet.
    pub fn new() -> Self {
        Migrations::default()
    }

    /// With `migration`.
    pub fn with(mut self, migration: Migration) -> Self {
        self.list.push(migration);
        self
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Applies those not yet applied, in version order, each in a transaction of its own
    /// (sqlx's migrator; on PostgreSQL under an advisory lock, so instances starting together
    /// apply each once).
    pub(crate) async fn run(
        &self,
        pool: &sqlx::AnyPool,
        backend: Backend,
    ) -> Result<(), sqlx::migrate::MigrateError> {
        let source = Resolved(
            self.list
                .iter()
                .map(|m| {
                    sqlx::migrate::Migration::new(
                        m.version,
                        m.description.clone(),
                        MigrationType::Simple,
                        Cow::Owned(m.sql(backend).to_owned()),
                        false,
                    )
                })
                .collect(),
        );
        sqlx::migrate::Migrator::new(source).await?.run(pool).await
    }
}

/// The migrations of one backend, as sqlx's migrator takes them.
#[derive(Debug)]
struct Resolved(Vec<sqlx::migrate::Migration>);

type Resolving = Pin<
    Box<
        dyn Future<Output = Result<Vec<sqlx::migrate::Migration>, sqlx::error::BoxDynError>> + Send,
    >,
>;

impl MigrationSource<'static> for Resolved {
    fn resolve(self) -> Resolving {
        let mut migrations = self.0;
        migrations.sort_by_key(|m| m.version);
        Box::pin(async move { Ok(migrations) })
    }
}
