use std::sync::{Mutex, MutexGuard};

use green_tea::prelude::*;

static COUNT: Mutex<u32> = Mutex::new(0);

#[provider(provides = "count")]
fn count() -> MutexGuard<'static, u32> {
    COUNT.lock().unwrap()
}

fn main() {}
