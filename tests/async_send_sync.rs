//! The public handles and futures can cross tasks and threads.

use green_tea::{
    BuildError, CloseError, Container, ContainerBuilder, Explain, ProvideError, Resolver,
};

fn send_sync<T: Send + Sync>(_: &T) {}
fn send<T: Send>(_: &T) {}
fn is_send_sync<T: Send + Sync>() {}

#[test]
fn handles_errors_and_futures_are_send() {
    is_send_sync::<Container>();
    is_send_sync::<ContainerBuilder>();
    is_send_sync::<Resolver<String>>();
    is_send_sync::<Explain>();
    is_send_sync::<BuildError>();
    is_send_sync::<ProvideError>();
    is_send_sync::<CloseError>();

    let container = Container::builder().value("k", 1_u32).build().unwrap();
    send(&container.get::<u32>("k"));
    send(&container.start());
    send(&container.close());
    let resolver = container.resolver::<u32>("k").unwrap();
    send(&resolver.get());
    send_sync(&resolver);
}
