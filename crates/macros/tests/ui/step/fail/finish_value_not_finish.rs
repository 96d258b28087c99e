use green_tea::prelude::*;

/// Has no `Finish` impl.
struct Tx;

#[step(provides = "tx", finish)]
fn begin() -> Tx {
    Tx
}

fn main() {}
