use green_tea::prelude::*;
use green_tea::workers::Shutdown;

struct NotAnError;

#[worker]
async fn sweeper(shutdown: Shutdown) -> Result<(), NotAnError> {
    shutdown.requested().await;
    Ok(())
}

fn main() {}
