use green_tea::prelude::*;

#[derive(Default)]
struct Cache;

#[provider(provides = "cache")]
impl Cache {
    fn provide(&self) -> u32 {
        1
    }

    fn build_timeout(&self) {}
}

fn main() {}
