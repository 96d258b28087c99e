//! The notifications module on a bare `Container`, as a crate on green-tea-core alone sees it:
//! its notifiers join the app's `notifiers[]`, in order, each posting through the module's
//! private client, which the outbox reads.

use std::sync::Arc;

use green_tea_core::{Container, ProviderFn};
use shop_notifications::{Contact, HttpClient, Notifier, Outbox};

#[tokio::test]
async fn the_notifiers_join_the_apps_list_and_post_through_the_modules_client() {
    let container = Container::builder()
        .module(shop_notifications::module())
        .provider(
            ProviderFn::new("told", |needs| async move {
                let to = Contact {
                    email: "ada@example.com",
                    phone: None,
                };
                let told: Vec<String> = needs
                    .all::<Arc<dyn Notifier>>(0)?
                    .iter()
                    .map(|notifier| notifier.notify(&to, "hello").unwrap_or_default())
                    .collect();
                Ok(told)
            })
            .needs::<Arc<dyn Notifier>>("notifiers[]"),
        )
        .build()
        .unwrap();
    let told = container.get::<Vec<String>>("told").await.unwrap();
    assert_eq!(
        *told,
        ["email to ada@example.com: hello", ""],
        "no phone: no sms"
    );
    let outbox = container
        .get::<Outbox>("notifications::outbox")
        .await
        .unwrap();
    assert_eq!(
        outbox.sent(),
        ["POST https://notify.example/email to ada@example.com: hello"]
    );
    container.close().await.unwrap();
}

#[test]
fn the_modules_client_is_private() {
    let peek = ProviderFn::new("peek", |needs| async move {
        Ok(needs.get::<HttpClient>(0).is_ok())
    })
    .needs::<HttpClient>("notifications::http");
    let err = Container::builder()
        .module(shop_notifications::module())
        .provider(peek)
        .build()
        .unwrap_err();
    let codes: Vec<&str> = err.problems().iter().map(|p| p.code()).collect();
    assert_eq!(codes, ["GT0014"], "{err}");
}
