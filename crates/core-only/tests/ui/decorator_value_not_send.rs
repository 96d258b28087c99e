use green_tea_core::decorator;
use std::rc::Rc;

#[decorator(decorates = "billing")]
fn logged(billing: &Rc<String>) -> Rc<String> {
    Rc::clone(billing)
}

fn main() {}
