use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker(critical = true)]
async fn consumer(shutdown: Shutdown) -> Result<(), BoxError> {
    shutdown.requested().await;
    Ok(())
}

fn main() {}
