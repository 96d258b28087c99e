use green_tea::prelude::*;

#[derive(Default)]
struct Counter;

#[provider(provides = "count")]
impl Counter {
    fn provide(&self) -> u32 {
        1
    }

    async fn dispose(&self, value: &String) {
        let _ = value;
    }
}

fn main() {}
