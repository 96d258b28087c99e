//! Providers declared the way a crate that only adds providers declares them: with
//! `green_tea_core::provider` (and a decorator, with `green_tea_core::decorator`), depending on
//! green-tea-core alone. Nothing here names the `green-tea` facade, which this crate does not
//! depend on; its tests build a `Container` of these providers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea_core::{BoxError, decorator, provider};

/// The name to greet: a provider fn that `discover()` finds.
#[provider(provides = "name")]
pub fn name() -> String {
    "core".to_owned()
}

/// The greeting for `name`: a fallible provider fn that needs another's value.
#[provider(provides = "greeting", needs = "name")]
pub fn greeting(name: &String) -> Result<String, BoxError> {
    if name.is_empty() {
        return Err("nobody to greet".into());
    }
    Ok(format!("hello, {name}"))
}

/// The greeting, said louder: a decorator of `greeting` that `discover()` finds.
#[decorator(decorates = "greeting", needs = "volume?")]
pub async fn louder(greeting: Arc<String>, volume: Option<&usize>) -> String {
    let marks = "!".repeat(volume.copied().unwrap_or(1));
    format!("{greeting}{marks}")
}

/// What the greeter provides: the greeting it was handed.
#[derive(Debug)]
pub struct Greeted {
    /// The greeting.
    pub text: Arc<String>,
}

/// Provider state: an impl-block provider whose `dispose` runs on `close()`. It is made by the
/// application (it holds a counter the application reads), so `discover()` leaves it out.
#[derive(Debug, Default)]
pub struct Greeter {
    disposed: Arc<AtomicUsize>,
}

impl Greeter {
    /// A greeter that counts its disposes in `disposed`.
    pub fn counting(disposed: Arc<AtomicUsize>) -> Self {
        Greeter { disposed }
    }
}

#[provider(provides = "greeter", needs = "greeting", discover = false)]
impl Greeter {
    async fn provide(&self, greeting: Arc<String>) -> Greeted {
        Greeted { text: greeting }
    }

    async fn dispose(&self, greeted: &Greeted) -> Result<(), BoxError> {
        assert!(greeted.text.starts_with("hello"));
        self.disposed.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}
