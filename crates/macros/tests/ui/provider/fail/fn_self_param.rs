use green_tea::prelude::*;

struct Billing;

impl Billing {
    #[provider(provides = "billing")]
    fn billing(&self) -> u32 {
        1
    }
}

fn main() {}
