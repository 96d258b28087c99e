use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker]
async fn sweeper(shutdown: Shutdown, again: Shutdown) -> Result<(), BoxError> {
    shutdown.requested().await;
    again.requested().await;
    Ok(())
}

fn main() {}
