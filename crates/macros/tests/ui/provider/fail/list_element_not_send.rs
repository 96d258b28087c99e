use green_tea::prelude::*;
use std::rc::Rc;

#[provider(provides = "alerts", needs = "notifiers[]")]
fn alerts(notifiers: All<'_, Rc<String>>) -> usize {
    let _ = notifiers;
    0
}

fn main() {}
