//! A provider needing another module's key and an optional one, built in a container with
//! those modules.

use green_tea::prelude::*;

#[provider(provides = "checkout", needs = ["billing::client", "cache::store?"])]
fn checkout(client: &String, store: Option<&String>) -> String {
    format!("{client} and {}", store.map_or("no store", String::as_str))
}

#[tokio::test(flavor = "current_thread")]
async fn compiles_and_runs() {
    let container = Container::builder()
        .module(
            Module::new("billing")
                .value("client", String::from("client"))
                .export("client"),
        )
        .module(
            Module::new("cache")
                .value("store", String::from("store"))
                .export("store"),
        )
        .provider(checkout::provider())
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("checkout").await.unwrap(),
        "client and store"
    );
    container.close().await.unwrap();
}
