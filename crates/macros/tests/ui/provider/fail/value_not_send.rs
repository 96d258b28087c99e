use std::rc::Rc;

use green_tea::prelude::*;

#[provider(provides = "counter")]
fn counter() -> Rc<u32> {
    Rc::new(1)
}

fn main() {}
