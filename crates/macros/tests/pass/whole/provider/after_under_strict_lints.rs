//! Documented, public contributions and decorators ordered by `after`, under strict lints.
#![forbid(unsafe_code)]
#![deny(missing_docs, warnings)]

use green_tea::prelude::*;

/// Notifications.
pub mod notify {
    use green_tea::prelude::*;

    /// Mails, after the others.
    #[provider(provides = "notifiers[]", after = ["sms", "Pager"])]
    pub fn email() -> String {
        "email".to_owned()
    }

    /// Texts.
    #[provider(provides = "notifiers[]")]
    pub async fn sms() -> String {
        "sms".to_owned()
    }

    /// Pages, after the texts.
    #[derive(Default)]
    pub struct Pager;

    #[provider(provides = ["pagerKey", "notifiers[]"], after = "sms")]
    impl Pager {
        /// The pager's key and its contribution.
        pub fn provide(&self) -> (String, String) {
            ("pager".to_owned(), "pager".to_owned())
        }
    }

    /// Every channel.
    #[provider(provides = "channels")]
    pub fn channels() -> String {
        "channels".to_owned()
    }

    /// Counts, wrapping what `logged` made.
    #[decorator(decorates = "channels", after = "logged")]
    pub fn counted(channels: &String) -> String {
        format!("counted({channels})")
    }

    /// Logs.
    #[decorator(decorates = "channels")]
    pub fn logged(channels: &String) -> String {
        format!("logged({channels})")
    }
}

#[test]
fn compiles_and_runs() {
    let _ = Container::builder()
        .provider(notify::email::provider())
        .provider(notify::sms::provider())
        .provider(notify::Pager)
        .provider(notify::channels::provider())
        .decorator(notify::counted::decorator())
        .decorator(notify::logged::decorator());
}
