use green_tea::prelude::*;

#[provider(provides = "billing")]
fn billing<T: Default>() -> T {
    T::default()
}

fn main() {}
