use green_tea::prelude::*;
use std::sync::Arc;

trait Notifier: Send + Sync {}

#[provider(provides = "alerts", needs = "notifiers")]
fn alerts(notifiers: All<'_, Arc<dyn Notifier>>) -> usize {
    notifiers.len()
}

fn main() {}
