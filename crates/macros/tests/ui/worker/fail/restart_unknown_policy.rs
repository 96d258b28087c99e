use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker(restart = "always")]
async fn sweeper(shutdown: Shutdown) -> Result<(), BoxError> {
    shutdown.requested().await;
    Ok(())
}

fn main() {}
