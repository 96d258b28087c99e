use green_tea::prelude::*;

#[step(provides = "user")]
fn auth<T: Default>() -> T {
    T::default()
}

fn main() {}
