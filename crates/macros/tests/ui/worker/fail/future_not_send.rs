use std::rc::Rc;

use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker]
async fn sweeper(shutdown: Shutdown) -> Result<(), BoxError> {
    let local = Rc::new(1);
    shutdown.requested().await;
    let _ = local;
    Ok(())
}

fn main() {}
