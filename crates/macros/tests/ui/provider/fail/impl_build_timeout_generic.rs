use std::time::Duration;

use green_tea::prelude::*;

#[derive(Default)]
struct Cache;

#[provider(provides = "cache")]
impl Cache {
    fn provide(&self) -> u32 {
        1
    }

    fn build_timeout<T: Default>(&self) -> Duration {
        Duration::from_secs(2)
    }
}

fn main() {}
