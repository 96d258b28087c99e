use green_tea::prelude::*;

#[decorator(decorates = "notifiers[]")]
fn logged(notifier: &String) -> String {
    notifier.clone()
}

fn main() {}
