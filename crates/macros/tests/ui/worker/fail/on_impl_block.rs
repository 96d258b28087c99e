use green_tea::prelude::*;

struct Sweeper;

#[worker]
impl Sweeper {
    async fn run(&self) -> Result<(), BoxError> {
        Ok(())
    }
}

fn main() {}
