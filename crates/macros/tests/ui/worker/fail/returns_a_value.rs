use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker]
async fn sweeper(shutdown: Shutdown) -> Result<u64, BoxError> {
    shutdown.requested().await;
    Ok(1)
}

fn main() {}
