//! The public handles and futures can cross tasks and threads.

use green_tea::explain::Explain;
use green_tea::{BuildError, CloseError, Container, ContainerBuilder, ProvideError, Resolver};

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
    send(&container.build_all());
    send(&container.close());
    let resolver = container.resolver::<u32>("k").unwrap();
    send(&resolver.get());
    send_sync(&resolver);
}

#[test]
fn the_app_and_its_futures_are_send() {
    use green_tea::App;
    use green_tea::test::TestClient;
    is_send_sync::<App>();
    is_send_sync::<TestClient>();
    is_send_sync::<green_tea::HttpError>();
    is_send_sync::<green_tea::Error>();
    // It moves into the task that does the work it keeps in flight.
    is_send_sync::<green_tea::serve::InFlightGuard>();
    let app = App::builder().build().unwrap();
    send(&app.close());
    send(&app.start());
    send(&app.handle(green_tea::http::Request::new(Default::default())));
    send(&app.serve("127.0.0.1:0"));
    // Checked, not run: each listener's serve future moves into a task as `serve`'s does.
    #[cfg(feature = "tls")]
    let _tls = |tcp: tokio::net::TcpListener, config| {
        send(&app.serve_tls_until(tcp, config, async {}));
    };
    #[cfg(unix)]
    let _unix = |unix: tokio::net::UnixListener| send(&app.serve_unix_until(unix, async {}));
}
