//! The database recipe against SQLite and a PostgreSQL server the tests start: the pool, the unit of work, workers and outages.
//!
//! One binary for the area, so that it links once; each module is one topic.

#[path = "../support/postgres.rs"]
mod postgres;
// Its macros (`on_both!`) are used by the modules below it.
#[macro_use]
#[path = "../support/database.rs"]
mod database;

mod outage;
mod pool;
mod unit_of_work;
mod workers;
