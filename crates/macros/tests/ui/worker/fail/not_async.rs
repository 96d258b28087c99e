use green_tea::prelude::*;
use green_tea::workers::Shutdown;

#[worker]
fn sweeper(shutdown: Shutdown) -> Result<(), BoxError> {
    let _ = shutdown;
    Ok(())
}

fn main() {}
