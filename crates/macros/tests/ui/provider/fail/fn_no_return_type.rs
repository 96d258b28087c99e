use green_tea::prelude::*;

#[provider(provides = "billing")]
async fn billing() {}

fn main() {}
