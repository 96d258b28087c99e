//! `discover()` collects every `#[provider]` in the binary, so this file holds one
//! self-contained graph and nothing else.

use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::prelude::*;

#[provider(provides = "greeting", needs = ["name", "punctuation"])]
async fn greeting(name: &String, punctuation: Arc<char>) -> String {
    format!("hello, {name}{punctuation}")
}

#[provider(provides = "name")]
fn user_name() -> String {
    "tea".to_owned()
}

/// Made with `new()` by `discover()`.
struct Punctuation {
    mark: char,
}

#[provider(provides = "punctuation")]
impl Punctuation {
    fn new() -> Self {
        Punctuation { mark: '!' }
    }

    fn provide(&self) -> char {
        self.mark
    }
}

static DISPOSED: AtomicUsize = AtomicUsize::new(0);

/// Made with `Default` by `discover()`.
#[derive(Default)]
struct Shout;

#[provider(provides = "shout", needs = "greeting")]
impl Shout {
    async fn provide(&self, text: &String) -> String {
        text.to_uppercase()
    }

    async fn dispose(&self) {
        DISPOSED.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn discover_finds_every_macro_provider() {
    let container = Container::builder().discover().build().unwrap();
    let mut keys: Vec<String> = container.keys().iter().map(|k| k.to_string()).collect();
    keys.sort();
    assert_eq!(keys, ["greeting", "name", "punctuation", "shout"]);
    assert_eq!(
        *container.get::<String>("shout").await.unwrap(),
        "HELLO, TEA!"
    );
    container.close().await.unwrap();
    assert_eq!(DISPOSED.load(Ordering::SeqCst), 1);
}
