//! `discover()` collects every `#[provider]` in the binary, so this file holds one
//! self-contained graph and nothing else.

use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::prelude::*;
use std::sync::Arc;

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

/// Carries a setting the app hands it, so `discover()` cannot make it: `discover = false`.
struct Suffix {
    text: String,
}

#[provider(provides = "suffix", discover = false)]
impl Suffix {
    fn provide(&self) -> String {
        self.text.clone()
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

#[tokio::test]
async fn discover_leaves_out_what_says_discover_false() {
    let container = Container::builder()
        .discover()
        .provider(Suffix {
            text: "?".to_owned(),
        })
        .build()
        .unwrap();
    let mut keys: Vec<String> = container.keys().iter().map(|k| k.to_string()).collect();
    keys.sort();
    assert_eq!(keys, ["greeting", "name", "punctuation", "shout", "suffix"]);
    assert_eq!(*container.get::<String>("suffix").await.unwrap(), "?");
    container.close().await.unwrap();
}

#[test]
fn a_provider_left_out_is_named_when_its_key_is_missing() {
    let needs_suffix = green_tea::ProviderFn::new("shoutedSuffix", |needs| async move {
        Ok(needs.get::<String>(0)?.to_uppercase())
    })
    .needs::<String>("suffix");
    let error = Container::builder()
        .discover()
        .provider(needs_suffix)
        .build()
        .expect_err("nothing provides `suffix`");
    let text = error.to_string();
    assert!(
        text.contains("register it with `.provider(Suffix { .. })`"),
        "{text}"
    );
}

#[test]
fn registering_a_discovered_provider_again_is_a_duplicate() {
    let error = Container::builder()
        .discover()
        .provider(Shout)
        .build()
        .expect_err("`shout` is provided twice");
    assert!(
        error
            .to_string()
            .contains("error[GT0003]: `shout` is provided twice"),
        "{error}"
    );
}
