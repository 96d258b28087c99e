use green_tea::prelude::*;

#[derive(Settings)]
#[settings(when = "mailOn")]
struct Retry {
    attempts: u8,
}

fn main() {}
