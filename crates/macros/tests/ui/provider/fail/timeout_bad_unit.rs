use green_tea::prelude::*;

struct Pool;

#[provider(provides = "pool", timeout = "1m 5x", discover = false)]
impl Pool {
    async fn provide(&self) -> u32 {
        7
    }
}

fn main() {}
