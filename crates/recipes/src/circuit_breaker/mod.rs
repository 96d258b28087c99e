//! A circuit breaker: after enough consecutive failures it stops calling and fails fast for a
//! while, then lets a trial through to see whether the upstream recovered.
//!
//! The defaults keep the reference guide's semantics exactly: `threshold` consecutive failures
//! open it; while open, calls fail fast with [`BreakerError::Open`] and the operation is not
//! called; after the open window the next call is a half-open trial; a success closes it and
//! resets the count from any state; a failed trial re-opens it at once. Past the reference's
//! stated limits: half-open admits one trial (configurable), and a dropped or hung trial frees
//! its slot; outcomes can be classified ([`Outcome::Ignored`] for a 404); an optional call
//! timeout; a fixed or exponential open duration; transitions as `tracing` events and to a
//! callback; counters; operator holds.
//!
//! With the `redis` feature, `shared` (`CircuitBreaker::shared`) shares failures and the
//! verdict across instances through Redis, without a round trip per call.
//!
//! A closed breaker takes no lock per call: an atomic word mirrors the state and holds the
//! failure count, and calls admit and settle with a load and, when the count changes, a
//! compare-exchange on it. Open, half-open, trials, holds and every transition stay with a
//! state machine under one lock.
//!
//! ```
//! use green_tea_recipes::circuit_breaker::{BreakerState, CircuitBreaker, Config, ManualClock};
//! use std::time::Duration;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let clock = ManualClock::new();
//! let breaker = CircuitBreaker::new(Config::new(2, Duration::from_millis(1000)).clock(clock.clone()));
//! let down = || async { Err::<&str, _>("down") };
//!
//! assert!(breaker.call(down).await.is_err());
//! assert!(breaker.call(down).await.is_err());
//! assert_eq!(breaker.state(), BreakerState::Open);
//!
//! clock.set(Duration::from_millis(2000)); // the window elapsed
//! assert_eq!(breaker.call(|| async { Ok::<_, &str>("ok") }).await.unwrap(), "ok");
//! assert_eq!(breaker.state(), BreakerState::Closed);
//! # }
//! ```

mod breaker;
mod call;
mod clock;
mod config;
mod counters;
mod error;
mod fast_path;
#[cfg(feature = "redis")]
mod fleet;
#[cfg(not(green_tea_loom))]
mod health;
mod machine;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "redis")]
pub mod shared;
mod state;
mod sync;
mod word;

pub use breaker::CircuitBreaker;
pub use call::Outcome;
pub use clock::{Clock, ManualClock, SystemClock};
pub use config::{Config, OnTransition, OpenDuration};
pub use counters::Counters;
pub use error::BreakerError;
pub use state::{BreakerState, Transition};
