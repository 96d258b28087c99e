use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker(needs = "label?")]
async fn sweeper(label: &String, shutdown: Shutdown) -> Result<(), BoxError> {
    let _ = label;
    shutdown.requested().await;
    Ok(())
}

fn main() {}
