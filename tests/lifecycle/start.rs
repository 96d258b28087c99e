//! `start()`: build eagerly along the graph; on failure, undo and close.

use crate::support;

use std::sync::atomic::Ordering;

use green_tea::{Container, ProvideError};
use support::{Log, OnProvide, Probe, Service};

#[tokio::test]
async fn start_builds_every_provider_once() {
    let log = Log::default();
    let probes = [
        Probe::new("base", &[], &log),
        Probe::new("left", &["base"], &log),
        Probe::new("right", &["base"], &log),
        Probe::new("top", &["left", "right"], &log),
    ];
    let counters: Vec<_> = probes.iter().map(Probe::counter).collect();
    let container = probes
        .into_iter()
        .fold(Container::builder(), |b, p| b.provider(p))
        .build()
        .unwrap();
    container.build_all().await.unwrap();
    assert!(counters.iter().all(|c| c.load(Ordering::SeqCst) == 1));
    let order = log.names("provide");
    assert_eq!((order[0].as_str(), order[3].as_str()), ("base", "top"));
    container.close().await.unwrap();
}

#[tokio::test]
async fn start_keys_builds_only_their_slices() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("base", &[], &log))
        .provider(Probe::new("top", &["base"], &log))
        .provider(Probe::new("other", &[], &log))
        .build()
        .unwrap();
    container.build_keys(&["top"]).await.unwrap();
    assert_eq!(log.names("provide"), ["base", "top"]);
    assert!(matches!(
        container.build_keys(&["nope"]).await,
        Err(ProvideError::UnknownKey { .. })
    ));
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_failing_start_disposes_what_it_built_in_reverse_and_closes() {
    let log = Log::default();
    let never = Probe::new("after", &["top"], &log);
    let never_builds = never.counter();
    let container = Container::builder()
        .provider(Probe::new("base", &[], &log))
        .provider(Probe::new("mid", &["base"], &log))
        .provider(Probe::new("top", &["mid"], &log).on_provide(OnProvide::FailTimes(1.into())))
        .provider(never)
        .build()
        .unwrap();

    let err = container.build_all().await.unwrap_err();
    let ProvideError::Failed {
        provider,
        needed_by,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(provider, "top");
    assert!(
        needed_by.is_empty() || needed_by == &["after"],
        "{needed_by:?}"
    );
    assert_eq!(never_builds.load(Ordering::SeqCst), 0);
    assert_eq!(log.names("dispose"), ["mid", "base"]);
    assert!(container.is_closed());
    assert!(matches!(
        container.get::<Service>("base").await,
        Err(ProvideError::Closed)
    ));
}

/// An app whose `broker` cannot be built, a worker that needs it, a route that needs nothing,
/// and the health routes.
fn app_whose_broker_is_down() -> green_tea::App {
    use green_tea::extract::RequestContext;
    use green_tea::routing::Route;
    use green_tea::workers::WorkerFn;
    use green_tea::{App, BoxError, ProviderFn};
    App::builder()
        .provider(ProviderFn::new("broker", |_| async {
            Err::<String, BoxError>("down".into())
        }))
        .worker(WorkerFn::new("consumer", |_, _| async { Ok(()) }).needs::<String>("broker"))
        .route(Route::get("/plain", |_: RequestContext| async { "plain" }))
        .health_routes("/healthz", "/readyz")
        .build()
        .unwrap()
}

/// What a closed app answers: liveness 503 saying closed, and 503 on a route that needs no
/// provider.
async fn assert_answers_as_closed(app: &green_tea::App) {
    let client = green_tea::test::TestClient::new(app.clone());
    let live = client.get("/healthz").send().await;
    assert_eq!(live.status(), 503);
    assert_eq!(
        live.json::<serde_json::Value>()["closed"],
        serde_json::json!(true)
    );
    assert_eq!(client.get("/plain").send().await.status(), 503);
}

#[tokio::test]
async fn a_failed_start_closes_the_app_as_close_does() {
    let app = app_whose_broker_is_down();
    let error = app.start().await.unwrap_err();
    assert!(error.to_string().contains("down"), "{error}");
    assert!(app.is_closed());
    assert!(matches!(
        app.get::<String>("broker").await,
        Err(ProvideError::Closed)
    ));
    assert_answers_as_closed(&app).await;
    // It closed through `close()`: a later close returns that same outcome at once.
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_failed_serve_until_closes_the_app_the_same_way() {
    let app = app_whose_broker_is_down();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served =
        support::http::within("serve", app.serve_until(listener, std::future::pending())).await;
    assert!(served.unwrap_err().to_string().contains("down"));
    assert!(app.is_closed());
    assert_answers_as_closed(&app).await;
}

#[tokio::test]
async fn serve_after_a_failed_start_returns_closed_at_once() {
    let app = app_whose_broker_is_down();
    app.start().await.unwrap_err();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served =
        support::http::within("serve", app.serve_until(listener, std::future::pending())).await;
    assert!(
        matches!(served, Err(green_tea::Error::Provide(ProvideError::Closed))),
        "{served:?}"
    );
}

#[tokio::test]
async fn serve_of_a_closed_app_without_workers_returns_closed_at_once() {
    use green_tea::extract::RequestContext;
    use green_tea::routing::Route;
    let app = green_tea::App::builder()
        .route(Route::get("/plain", |_: RequestContext| async { "plain" }))
        .build()
        .unwrap();
    app.close().await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served =
        support::http::within("serve", app.serve_until(listener, std::future::pending())).await;
    assert!(
        matches!(served, Err(green_tea::Error::Provide(ProvideError::Closed))),
        "{served:?}"
    );
}
