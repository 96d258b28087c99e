//! What the SQLite write route's two servers share (issue 27): the table, the insert, and the
//! database's settings, the same for green-tea with the database recipe
//! (green-tea-sqlite-server) and for axum + sqlx by hand (axum-sqlite-server,
//! axum-sqlite-any-server). Each server opens the file `DATABASE_URL` names, fresh for each run
//! (bench/callgrind.sh and bench/http.sh make a temporary directory per run).

use std::time::Duration;

/// The orders' table: what the write route inserts into.
pub const CREATE_ORDERS: &str =
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id TEXT NOT NULL, amount BIGINT NOT NULL)";

/// The write: one row per `POST /orders`.
pub const INSERT_ORDER: &str = "INSERT INTO orders (user_id, amount) VALUES ($1, $2)";

/// The pool's bound: the recipe's default (`DATABASE_MAX_CONNECTIONS`).
pub const MAX_CONNECTIONS: u32 = 10;

/// How long a request waits for a connection: the recipe's default
/// (`DATABASE_ACQUIRE_TIMEOUT`).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a connection waits for another's write lock: the recipe's default
/// (`DATABASE_BUSY_TIMEOUT`).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// `PRAGMA synchronous`'s value both servers run with: NORMAL (1). In WAL mode a commit then
/// writes the WAL without an fsync (the WAL is synced at checkpoints), so that what is measured
/// is the servers' work rather than the disk's. The recipe cannot set it (its connections set
/// only the busy timeout and WAL), so bench/build.sh builds SQLite with NORMAL as its default in
/// WAL mode (`LIBSQLITE3_FLAGS=SQLITE_DEFAULT_WAL_SYNCHRONOUS=1`), for both servers alike; each
/// server checks it at start.
pub const SYNCHRONOUS_NORMAL: i64 = 1;

/// The database's URL: `DATABASE_URL`, which the scripts set to a fresh file.
pub fn database_url() -> String {
    std::env::var("DATABASE_URL").expect("DATABASE_URL names the database (sqlite://...)")
}

/// Exits if the database does not run as both servers must: WAL, `synchronous` NORMAL.
pub fn check_pragmas(journal_mode: &str, synchronous: i64) {
    assert_eq!(journal_mode, "wal", "the database is not in WAL mode");
    assert_eq!(
        synchronous, SYNCHRONOUS_NORMAL,
        "PRAGMA synchronous is {synchronous}, not NORMAL (1): build with bench/build.sh, which \
         sets LIBSQLITE3_FLAGS=SQLITE_DEFAULT_WAL_SYNCHRONOUS=1"
    );
}
