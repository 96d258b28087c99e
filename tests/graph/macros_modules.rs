//! The macros' spelling of another module's key: a `#[provider]`, `#[decorator]`, `#[step]` or
//! route that needs `billing::client` (or `cache::store?`) gets that module's exported value,
//! and a decorator of another module's key, refused by `#[decorator]` at compile time, is
//! refused by `build()` when written by hand (GT0010).

use green_tea::error::Problem;
use green_tea::prelude::*;
use green_tea::test::TestClient;
use green_tea::{Container, ProviderFn};

/// Exports its client.
fn billing() -> Module {
    Module::new("billing")
        .value("client", String::from("the billing client"))
        .export("client")
}

/// Exports its store.
fn cache() -> Module {
    Module::new("cache")
        .value("store", String::from("the store"))
        .export("store")
}

#[provider(provides = "checkout", needs = ["billing::client", "cache::store?"], discover = false)]
fn checkout(client: &String, store: Option<&String>) -> String {
    let store = store.map_or("no cache", String::as_str);
    format!("checkout over {client} and {store}")
}

#[decorator(decorates = "checkout", needs = "billing::client?", discover = false)]
fn audited(checkout: &String, client: Option<&String>) -> String {
    format!("audited ({}) {checkout}", client.is_some())
}

#[step(provides = "receipt", needs = "billing::client")]
fn receipt(client: &String) -> String {
    format!("receipt from {client}")
}

struct Shop;

#[route("/shop")]
impl Shop {
    #[get("/")]
    async fn show(
        #[needs("checkout")] checkout: &String,
        #[needs("receipt")] receipt: &String,
        #[needs("cache::store")] store: &String,
    ) -> String {
        format!("{checkout}; {receipt}; {store}")
    }
}

/// The shop: its own `checkout`, decorated, and a route whose step needs billing's client.
fn shop() -> Module {
    Module::new("shop")
        .provider(checkout::provider())
        .decorator(audited::decorator())
        .step(receipt::step())
        .routes(Shop::routes())
        .export("checkout")
}

#[tokio::test]
async fn a_provider_needs_another_modules_key_and_an_optional_one() {
    let app = App::builder()
        .module(billing())
        .module(cache())
        .provider(checkout::provider())
        .build()
        .unwrap();
    assert_eq!(
        *app.get::<String>("checkout").await.unwrap(),
        "checkout over the billing client and the store"
    );
    app.close().await.unwrap();

    let app = App::builder()
        .module(billing())
        .provider(checkout::provider())
        .build()
        .unwrap();
    assert_eq!(
        *app.get::<String>("checkout").await.unwrap(),
        "checkout over the billing client and no cache",
        "`cache::store?` is `None` when no module provides it"
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_modules_decorator_step_and_route_need_another_modules_keys() {
    let app = App::builder()
        .module(billing())
        .module(cache())
        .module(shop())
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let shown = client.get("/shop").send().await;
    assert_eq!(
        (shown.status().as_u16(), shown.text()),
        (
            200,
            "audited (true) checkout over the billing client and the store; receipt from the \
             billing client; the store"
                .to_owned()
        )
    );
    assert_eq!(
        *app.get::<String>("shop::checkout").await.unwrap(),
        "audited (true) checkout over the billing client and the store"
    );
    app.close().await.unwrap();
}

#[test]
fn a_private_key_is_gt0014_through_the_macros_too() {
    let err = App::builder()
        .module(Module::new("billing").value("client", String::from("private")))
        .provider(checkout::provider())
        .build()
        .unwrap_err();
    assert!(
        matches!(
            err.problems(),
            [Problem::PrivateKey { module, .. }] if module == "billing"
        ),
        "{err}"
    );
}

#[test]
fn a_decorator_of_another_modules_key_is_refused_by_hand_too() {
    let err = Container::builder()
        .module(billing())
        .decorator(
            ProviderFn::new("billing::client", |needs| async move {
                Ok(format!("wrapped {}", needs.get::<String>(0)?))
            })
            .needs::<String>("billing::client"),
        )
        .build()
        .unwrap_err();
    let codes: Vec<&str> = err.problems().iter().map(Problem::code).collect();
    assert_eq!(codes, ["GT0010"], "{err}");
    // The words of `#[decorator]`'s refusal of `decorates = "billing::client"`.
    assert!(
        err.to_string().contains(
            "a decorator wraps a key of the module it is registered in, which names it without \
             a module: register it in `billing` (`Module::decorator`) and decorate `client`"
        ),
        "{err}"
    );
}
