use std::sync::atomic::AtomicU64;

use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker(needs = ["sweeps", "clock"])]
async fn sweeper(sweeps: &AtomicU64, shutdown: Shutdown) -> Result<(), BoxError> {
    let _ = sweeps;
    shutdown.requested().await;
    Ok(())
}

fn main() {}
