//! Documented, public workers in a module, of every need's form, with the `Shutdown` first,
//! between needs, last or not at all, under strict lints.
#![forbid(unsafe_code)]
#![deny(missing_docs, warnings)]

use green_tea::prelude::*;

/// The outbox.
pub mod outbox {
    use green_tea::prelude::*;
    use green_tea::workers::Shutdown;
    use std::sync::Arc;

    /// Relays the outbox, restarted when it fails; the app is not ready without it.
    #[worker(needs = ["outbox", "label?", "sinks[]", "stores{}"], restart = "on_failure", critical)]
    pub async fn relay(
        outbox: &String,
        label: Option<Arc<String>>,
        shutdown: Shutdown,
        sinks: All<'_, String>,
        stores: ByName<'_, u32>,
    ) -> Result<(), BoxError> {
        let _ = (outbox, label, sinks.len(), stores.len());
        shutdown.requested().await;
        Ok(())
    }

    /// Sweeps, and stops on its own; its error is any `Into<BoxError>`.
    #[worker(needs = "outbox", restart = "never", discover = false)]
    pub(crate) async fn sweep(outbox: Arc<String>) -> Result<(), std::io::Error> {
        let _ = outbox;
        Ok(())
    }

    /// Takes its shutdown first, by a path.
    #[worker(needs = "outbox")]
    pub(super) async fn watch(
        shutdown: green_tea::workers::Shutdown,
        outbox: &String,
    ) -> Result<(), BoxError> {
        let _ = outbox;
        shutdown.requested().await;
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn compiles_and_runs() {
    let _ = App::builder()
        .worker(outbox::relay::worker())
        .worker(outbox::sweep::worker())
        .worker(outbox::watch::worker());
    // The fn is still a fn.
    outbox::sweep(std::sync::Arc::new(String::new()))
        .await
        .unwrap();
}
