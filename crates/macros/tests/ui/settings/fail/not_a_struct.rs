use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "mode", prefix = "MODE")]
enum Mode {
    Fast,
    Slow,
}

fn main() {}
