use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker(needs = "sweeps")]
async fn sweeper<T: Send + Sync + 'static>(sweeps: &T, shutdown: Shutdown) -> Result<(), BoxError> {
    let _ = sweeps;
    shutdown.requested().await;
    Ok(())
}

fn main() {}
