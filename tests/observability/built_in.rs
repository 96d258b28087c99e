//! The routes green-tea answers itself (the health routes, the explain page) are seen like any
//! route: a `route` span at DEBUG, and `http.server.request.duration` labelled with their path,
//! with or without the app's global layers around them.

use crate::support;

use green_tea::App;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use support::logs::Logs;
use tracing::Level;

fn app(layered: bool) -> App {
    let builder = App::builder()
        .route(Route::get("/orders", |_: RequestContext| async { "[]" }))
        // A fallback takes every path no route has: the built-in paths must not be labelled
        // with it.
        .fallback(Route::fallback(|_: RequestContext| async { "elsewhere" }))
        .health_routes("/healthz", "/readyz")
        .explain_page("/_green-tea");
    let builder = if layered {
        builder.layer(tower_http::set_header::SetResponseHeaderLayer::overriding(
            http::header::SERVER,
            http::HeaderValue::from_static("green-tea"),
        ))
    } else {
        builder
    };
    builder.build().unwrap()
}

#[tokio::test]
async fn a_health_request_and_the_explain_page_each_have_a_route_span() {
    let (logs, _guard) = Logs::start_at(Level::DEBUG);
    let client = TestClient::new(app(false));
    assert_eq!(client.get("/healthz").send().await.status(), 200);
    assert_eq!(client.get("/readyz").send().await.status(), 503); // not started
    assert_eq!(client.get("/_green-tea").send().await.status(), 200);
    assert_eq!(client.post("/healthz").send().await.status(), 405);
    let text = logs.text();
    let finished: Vec<&str> = text
        .lines()
        .filter(|line| line.ends_with("finished"))
        .collect();
    for (method, path, status) in [
        ("GET", "/healthz", 200),
        ("GET", "/readyz", 503),
        ("GET", "/_green-tea", 200),
        ("POST", "/healthz", 405),
    ] {
        let span = format!(
            "route{{http.request.method={method} http.route={path} http.response.status_code={status} micros="
        );
        assert!(
            finished.iter().any(|line| line.contains(&span)),
            "no {span} in:\n{text}"
        );
    }
}

#[cfg(feature = "metrics")]
mod metrics_of_built_ins {
    use std::collections::BTreeMap;

    use metrics_util::debugging::{DebugValue, DebuggingRecorder};
    use metrics_util::{CompositeKey, MetricKind};

    use super::*;

    /// Each `http.server.request.duration` label set (`name=value` joined by commas, sorted)
    /// with how many requests it observed.
    fn durations(recorder: &DebuggingRecorder) -> BTreeMap<String, usize> {
        let snapshot = recorder.snapshotter().snapshot().into_vec();
        let mut found = BTreeMap::new();
        for (key, _, _, value) in snapshot {
            let key: CompositeKey = key;
            if key.kind() != MetricKind::Histogram
                || key.key().name() != green_tea::metric::HTTP_SERVER_REQUEST_DURATION
            {
                continue;
            }
            let DebugValue::Histogram(observed) = value else {
                continue;
            };
            let mut labels: Vec<String> = key
                .key()
                .labels()
                .map(|l| format!("{}={}", l.key(), l.value()))
                .collect();
            labels.sort();
            found.insert(labels.join(","), observed.len());
        }
        found
    }

    #[tokio::test]
    async fn a_built_in_route_is_measured_under_its_path_with_or_without_global_layers() {
        for layered in [false, true] {
            let recorder = DebuggingRecorder::new();
            let _installed = metrics::set_default_local_recorder(&recorder);
            let app = app(layered);
            let client = TestClient::new(app.clone());
            assert_eq!(client.get("/healthz").send().await.status(), 200);
            assert_eq!(client.get("/healthz").send().await.status(), 200);
            assert_eq!(client.get("/_green-tea").send().await.status(), 200);
            assert_eq!(client.get("/nowhere").send().await.text(), "elsewhere");
            app.close().await.unwrap();
            // Closed: liveness says so, and is measured too.
            assert_eq!(client.get("/healthz").send().await.status(), 503);
            let durations = durations(&recorder);
            let key = |route: &str, status: u16| {
                let error = if status >= 500 {
                    format!("error.type={status},")
                } else {
                    String::new()
                };
                format!(
                    "{error}http.request.method=GET,http.response.status_code={status},http.route={route}"
                )
            };
            let expected = BTreeMap::from([
                (key("/healthz", 200), 2),
                (key("/healthz", 503), 1),
                (key("/_green-tea", 200), 1),
                (key("(fallback)", 200), 1),
            ]);
            assert_eq!(
                durations.keys().collect::<Vec<_>>(),
                expected.keys().collect::<Vec<_>>(),
                "layered: {layered}"
            );
            assert_eq!(durations, expected, "layered: {layered}");
        }
    }
}
