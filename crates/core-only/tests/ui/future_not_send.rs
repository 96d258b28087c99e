use std::rc::Rc;

use green_tea_core::provider;

async fn tick() {}

#[provider(provides = "count")]
async fn count() -> u32 {
    let local = Rc::new(1);
    tick().await;
    *local
}

fn main() {}
