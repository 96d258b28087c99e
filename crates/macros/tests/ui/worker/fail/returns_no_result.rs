use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker]
async fn sweeper(shutdown: Shutdown) -> bool {
    shutdown.requested().await;
    true
}

fn main() {}
