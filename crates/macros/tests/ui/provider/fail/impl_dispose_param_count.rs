use green_tea::prelude::*;

#[derive(Default)]
struct Address;

#[provider(provides = ["host", "port"])]
impl Address {
    fn provide(&self) -> (String, u16) {
        ("localhost".to_owned(), 80)
    }

    async fn dispose(&self, host: &String) {
        let _ = host;
    }
}

fn main() {}
