use std::rc::Rc;

use green_tea::prelude::*;

async fn tick() {}

#[step(provides = "count")]
async fn count(parts: &Parts) -> u32 {
    let local = Rc::new(parts.headers.len() as u32);
    tick().await;
    *local
}

fn main() {}
