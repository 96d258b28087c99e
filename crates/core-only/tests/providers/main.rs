//! A crate that depends on green-tea-core alone declares fn and impl-block providers with
//! `green_tea_core::provider` and a decorator with `green_tea_core::decorator`, and builds,
//! reads and closes a `Container` of them.
//!
//! `decorator` and `worker` are whole files as such a crate writes them, under strict lints
//! (`missing_docs` sees through the `pub mod` chain from the binary's root, as it sees a
//! crate's root).

pub mod decorator;
pub mod worker;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea_core::{BuildError, Container};
use green_tea_core_only_check::{Greeted, Greeter, greeting, louder, name};

#[tokio::test]
async fn registered_providers_build_and_dispose() {
    let disposed = Arc::new(AtomicUsize::new(0));
    let container = Container::builder()
        .provider(name::provider())
        .provider(greeting::provider())
        .provider(Greeter::counting(Arc::clone(&disposed)))
        .build()
        .unwrap();
    let greeted = container.get::<Greeted>("greeter").await.unwrap();
    assert_eq!(*greeted.text, "hello, core");
    drop(greeted);
    container.close().await.unwrap();
    assert_eq!(disposed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_registered_decorator_wraps_the_value_with_its_optional_need() {
    let container = Container::builder()
        .provider(name::provider())
        .provider(greeting::provider())
        .decorator(louder::decorator())
        .value("volume", 3_usize)
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("greeting").await.unwrap(),
        "hello, core!!!"
    );
    container.close().await.unwrap();
}

#[tokio::test]
async fn discovery_finds_the_fns_and_the_decorator_and_leaves_out_the_greeter() {
    let container = Container::builder()
        .discover_in(&["green_tea_core_only_check"])
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("greeting").await.unwrap(),
        "hello, core!"
    );
    assert!(container.get::<Greeted>("greeter").await.is_err());
    container.close().await.unwrap();
}

#[test]
fn a_missing_need_is_a_build_error() {
    let Err(err) = Container::builder().provider(greeting::provider()).build() else {
        panic!("`greeting` needs `name`, which nothing provides");
    };
    let err: BuildError = err;
    assert!(err.to_string().contains("GT0001"), "{err}");
}
