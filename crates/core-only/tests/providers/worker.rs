//! A worker through core alone, with the vocabulary in its needs, under strict lints: a crate
//! that only adds providers ships its workers too.
#![deny(missing_docs, warnings)]

use green_tea_core::workers::Shutdown;
use green_tea_core::{All, BoxError, Container, worker};
use std::sync::Arc;

/// Relays the outbox to its sinks until the app closes.
#[worker(needs = ["outbox", "sinks[]", "label?"], restart = "on_failure", critical)]
pub async fn relay(
    outbox: &String,
    shutdown: Shutdown,
    sinks: All<'_, String>,
    label: Option<Arc<String>>,
) -> Result<(), BoxError> {
    let _ = (outbox, sinks.len(), label);
    shutdown.requested().await;
    Ok(())
}

/// Registered by hand.
#[worker(discover = false)]
pub async fn idle() -> Result<(), std::io::Error> {
    Ok(())
}

#[test]
fn compiles_and_builds() {
    let _ = Container::builder()
        .value("outbox", String::new())
        .worker(relay::worker())
        .worker(idle::worker());
}
