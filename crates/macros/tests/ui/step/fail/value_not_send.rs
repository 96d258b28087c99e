use std::rc::Rc;

use green_tea::prelude::*;

#[step(provides = "user")]
fn auth(parts: &Parts) -> Rc<String> {
    let _ = parts;
    Rc::new("ada".to_owned())
}

fn main() {}
