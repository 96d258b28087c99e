use green_tea::prelude::*;

struct Auth;

impl Auth {
    #[step(provides = "user")]
    fn auth(&self) -> u32 {
        1
    }
}

fn main() {}
