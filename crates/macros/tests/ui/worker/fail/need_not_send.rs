use std::cell::Cell;

use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker(needs = "count")]
async fn counter(count: &Cell<u32>, shutdown: Shutdown) -> Result<(), BoxError> {
    count.set(count.get() + 1);
    shutdown.requested().await;
    Ok(())
}

fn main() {}
