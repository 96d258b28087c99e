use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker(provides = "sweeps")]
async fn sweeper(shutdown: Shutdown) -> Result<(), BoxError> {
    shutdown.requested().await;
    Ok(())
}

fn main() {}
