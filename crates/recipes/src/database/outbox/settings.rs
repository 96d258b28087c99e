//! `OutboxSettings`: what each run of the relay uses, read at `build()` as the settings key
//! `outboxSettings` (`OUTBOX_*` variables, or the file's `[outbox]`).

use std::time::Duration;

use green_tea_core::Settings;

/// The outbox relay's settings: `OUTBOX_INTERVAL` and `OUTBOX_BATCH` (or `interval`, `batch`
/// in the file's `[outbox]` table). Register `OutboxSettings::provider()`; the relay
/// ([`OutboxRelay`](super::OutboxRelay)) needs it. What the relay reads when the app is
/// composed (its restart backoff, whether it is critical, its table) stays on
/// [`OutboxRelay`](super::OutboxRelay): only what a run uses is a setting.
///
/// ```
/// use std::time::Duration;
/// use green_tea_core::Container;
/// use green_tea_core::settings::{Settings, Sources};
/// use green_tea_recipes::database::OutboxSettings;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .settings(Sources::from_env_map([("OUTBOX_INTERVAL", "1s")]))
///     .provider(OutboxSettings::provider())
///     .build()
///     .unwrap();
/// let outbox = container.get::<OutboxSettings>("outboxSettings").await.unwrap();
/// assert_eq!(outbox.interval, Duration::from_secs(1));
/// assert_eq!(outbox.batch, 100); // the default
/// # container.close().await.unwrap(); }
/// ```
#[derive(Settings, Clone, Debug, PartialEq, Eq)]
#[settings(
    provides = "outboxSettings",
    prefix = "OUTBOX",
    validate = OutboxSettings::check,
    discover = false
)]
pub struct OutboxSettings {
    /// How long the relay waits when a round found nothing to deliver (or its shutdown,
    /// whichever comes first): `OUTBOX_INTERVAL` (default `200ms`). An event committed
    /// meanwhile waits up to this long.
    #[settings(default = "200ms")]
    pub interval: Duration,
    /// The most events a round delivers, at least 1: `OUTBOX_BATCH` (default 100). On
    /// PostgreSQL a round holds its rows' locks until its deliveries are marked.
    #[settings(default = "100")]
    pub batch: u32,
}

impl Default for OutboxSettings {
    /// The defaults: `200ms`, `100`.
    fn default() -> Self {
        OutboxSettings {
            interval: Duration::from_millis(200),
            batch: 100,
        }
    }
}

impl OutboxSettings {
    /// Refused at `build()`, rather than a relay that polls the database in a busy loop or
    /// never delivers: a zero interval, a zero batch.
    fn check(&self) -> Result<(), String> {
        if self.interval.is_zero() {
            return Err(
                "`interval` is zero: the relay would poll the database without a pause".to_owned(),
            );
        }
        if self.batch == 0 {
            return Err("`batch` is zero: the relay would never deliver an event".to_owned());
        }
        Ok(())
    }
}
