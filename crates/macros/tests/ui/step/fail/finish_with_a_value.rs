use green_tea::prelude::*;

struct Tx;

#[step(provides = "tx", finish = true)]
fn begin() -> Tx {
    Tx
}

fn main() {}
