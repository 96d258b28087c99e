use green_tea_core::provider;

// No `Default` and no `fn new()`: registered as made, so it must say `discover = false`.
struct Database {
    url: String,
}

#[provider(provides = "database")]
impl Database {
    fn provide(&self) -> String {
        self.url.clone()
    }
}

fn main() {
    let _ = Database {
        url: "postgres://db".to_owned(),
    };
}
