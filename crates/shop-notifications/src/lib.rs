//! The shop's notifications, as a library crate ships a module: `module()` makes it, its
//! providers are declared with `green_tea_core::provider` and found by
//! `Module::discover_in(&[env!("CARGO_CRATE_NAME")])`, and it depends on green-tea-core alone
//! (no HTTP layer: the app that mounts it adds routes if it wants them).
//!
//! What the module keeps private: `http`, its own client of the notification service (the app
//! and its other modules may have an `http` of their own; they do not collide). What it
//! exports: `outbox`, what was sent. What it contributes: an email and an SMS notifier to the
//! app's `notifiers[]` list, in that order (discovery's order: by name).
//!
//! ```
//! use green_tea_core::Container;
//! use shop_notifications::Outbox;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let container = Container::builder().module(shop_notifications::module()).build().unwrap();
//! let outbox = container.get::<Outbox>("notifications::outbox").await.unwrap();
//! assert!(outbox.sent().is_empty());
//! # container.close().await.unwrap(); }
//! ```

use std::sync::{Arc, Mutex};

use green_tea_core::{Module, provider};

/// Who a notifier tells, as the app knows them.
#[derive(Clone, Copy, Debug)]
pub struct Contact<'a> {
    /// Their email address.
    pub email: &'a str,
    /// Their phone number, if they gave one.
    pub phone: Option<&'a str>,
}

/// A way to tell someone something: what the app's `notifiers[]` list holds.
pub trait Notifier: Send + Sync {
    /// The message sent, or `None` when `to` cannot be reached this way.
    fn notify(&self, to: &Contact<'_>, text: &str) -> Option<String>;
}

/// The notifications' own client of the notification service, faked: it keeps what it posted
/// instead of posting it. The module's private `http`.
#[derive(Debug)]
pub struct HttpClient {
    base: String,
    posted: Mutex<Vec<String>>,
}

impl HttpClient {
    /// A client of the service at `base` (`https://notify.example`).
    pub fn new(base: &str) -> Self {
        HttpClient {
            base: base.to_owned(),
            posted: Mutex::new(Vec::new()),
        }
    }

    /// Posts `text` for `to` at `path` (`/email`).
    fn post(&self, path: &str, to: &str, text: &str) {
        let request = format!("POST {}{path} to {to}: {text}", self.base);
        self.posted.lock().unwrap().push(request);
    }
}

#[provider(provides = "http")]
fn http() -> HttpClient {
    HttpClient::new("https://notify.example")
}

/// What was sent, in order: each request the notifications' client posted.
#[derive(Debug)]
pub struct Outbox(Arc<HttpClient>);

impl Outbox {
    /// Every request posted so far (`POST https://notify.example/email to ...: ...`).
    pub fn sent(&self) -> Vec<String> {
        self.0.posted.lock().unwrap().clone()
    }
}

#[provider(provides = "outbox", needs = ["http"])]
fn outbox(http: Arc<HttpClient>) -> Outbox {
    Outbox(http)
}

struct Email(Arc<HttpClient>);

impl Notifier for Email {
    fn notify(&self, to: &Contact<'_>, text: &str) -> Option<String> {
        self.0.post("/email", to.email, text);
        Some(format!("email to {}: {text}", to.email))
    }
}

struct Sms(Arc<HttpClient>);

impl Notifier for Sms {
    fn notify(&self, to: &Contact<'_>, text: &str) -> Option<String> {
        let phone = to.phone?;
        self.0.post("/sms", phone, text);
        Some(format!("sms to {phone}: {text}"))
    }
}

#[provider(provides = "notifiers[]", needs = ["http"])]
fn email(http: Arc<HttpClient>) -> Arc<dyn Notifier> {
    Arc::new(Email(http))
}

#[provider(provides = "notifiers[]", needs = ["http"])]
fn sms(http: Arc<HttpClient>) -> Arc<dyn Notifier> {
    Arc::new(Sms(http))
}

/// The notifications module, `notifications`: its client private, `outbox` exported, its
/// notifiers added to the app's `notifiers[]`.
pub fn module() -> Module {
    Module::new("notifications")
        .discover_in(&[env!("CARGO_CRATE_NAME")])
        .export("outbox")
}
