use green_tea::prelude::*;
use std::rc::Rc;

#[decorator(decorates = "billing")]
fn logged(billing: &Rc<String>) -> Rc<String> {
    Rc::clone(billing)
}

fn main() {}
