use green_tea::prelude::*;

#[derive(Settings)]
#[settings(discover = false)]
struct BreakerSettings {
    threshold: u32,
}

fn main() {}
