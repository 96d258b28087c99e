use std::rc::Rc;

use green_tea_core::provider;

#[provider(provides = "counter")]
fn counter() -> Rc<u32> {
    Rc::new(1)
}

fn main() {}
