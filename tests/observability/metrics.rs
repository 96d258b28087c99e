//! Metrics through the `metrics` facade, read back from real recorders: the Prometheus
//! exporter's text, parsed by a Prometheus text-format parser, and metrics-util's debugging
//! recorder for exact values. Each test installs its recorder for its own thread only (a
//! current-thread runtime runs every task there), so the tests do not share one.

use std::collections::HashMap;

use green_tea::extract::{Path, RequestContext};
use green_tea::http::{Method, StatusCode};
use green_tea::prelude::*;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{App, HttpError};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusRecorder};
use metrics_util::CompositeKey;
use metrics_util::MetricKind;
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use prom_text_format_parser::{Metric, Sample, Scrape, Type, ValueType};

/// Explicit buckets: without them the exporter renders every histogram as a summary.
const BUCKETS: &[f64] = &[0.001, 0.01, 0.1, 1.0, 10.0];

/// The exporter as docs/observability.md sets it up: Prometheus's recommended naming.
fn prometheus() -> PrometheusRecorder {
    PrometheusBuilder::new()
        .with_recommended_naming(true)
        .set_buckets(BUCKETS)
        .expect("buckets are not empty")
        .build_recorder()
}

fn scrape(recorder: &PrometheusRecorder) -> (String, Scrape) {
    let text = recorder.handle().render();
    let scrape = Scrape::parse(&text).unwrap_or_else(|e| panic!("{e:?} in\n{text}"));
    (text, scrape)
}

fn metric<'a>(scrape: &'a Scrape, name: &str, kind: Type) -> &'a Metric {
    let found = scrape.metrics.iter().find(|m| m.name == name);
    let found = found.unwrap_or_else(|| panic!("no {name} in {scrape}"));
    assert_eq!(found.kind, kind, "{name}");
    found
}

fn label<'a>(sample: &'a Sample, key: &str) -> Option<&'a str> {
    let found = sample.labels.iter().find(|l| l.key == key);
    found.map(|l| l.value.as_str())
}

/// The samples of `name` whose labels include every one of `labels`.
fn samples<'a>(metric: &'a Metric, labels: &[(&str, &str)]) -> Vec<&'a Sample> {
    metric
        .samples
        .iter()
        .filter(|s| labels.iter().all(|(k, v)| label(s, k) == Some(*v)))
        .collect()
}

/// How many observations the one histogram series of `name` with `labels` holds, checking
/// that it has the buckets set.
fn observations(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let found = samples(metric(scrape, name, Type::Histogram), labels);
    let bounds: Vec<&str> = found
        .iter()
        .filter(|s| s.value.value_type == ValueType::Sample)
        .filter_map(|s| label(s, "le"))
        .collect();
    assert_eq!(
        bounds,
        ["0.001", "0.01", "0.1", "1", "10", "+Inf"],
        "{name} {labels:?}"
    );
    let counts: Vec<f64> = found
        .iter()
        .filter(|s| s.value.value_type == ValueType::Count)
        .map(|s| s.value.value.as_f64())
        .collect();
    assert_eq!(counts.len(), 1, "one {name} with {labels:?}: {found:?}");
    counts[0]
}

fn gauge(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let found = samples(metric(scrape, name, Type::Gauge), labels);
    assert_eq!(found.len(), 1, "one {name} with {labels:?}: {found:?}");
    found[0].value.value.as_f64()
}

#[provider(provides = "greeting")]
fn greeting() -> String {
    "hello".to_owned()
}

#[provider(provides = "flaky")]
fn flaky() -> Result<u32, BoxError> {
    Err("the upstream is down".into())
}

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/{id}")]
    async fn show(Path(id): Path<u32>, #[needs("greeting")] greeting: &String) -> String {
        format!("{greeting}, order {id}")
    }

    #[get("/broken/{id}")]
    async fn broken(#[needs("flaky")] flaky: &u32) -> String {
        flaky.to_string()
    }
}

fn orders_app() -> App {
    App::builder()
        .provider(greeting::provider())
        .provider(flaky::provider())
        .routes(Orders::routes())
        .build()
        .unwrap()
}

#[tokio::test]
async fn requests_are_exported_by_route_template_method_and_status() {
    let recorder = prometheus();
    let _installed = metrics::set_default_local_recorder(&recorder);
    // Units and help text, which the recommended naming reads.
    green_tea::metric::describe();
    // The recorder is installed before `build()`, which registers the handles.
    let app = orders_app();
    let client = TestClient::new(app.clone());
    for id in [1, 2, 3] {
        assert_eq!(
            client.get(&format!("/orders/{id}")).send().await.status(),
            200
        );
    }
    assert_eq!(client.get("/nowhere/7").send().await.status(), 404);
    assert_eq!(client.delete("/orders/1").send().await.status(), 405);
    assert_eq!(client.get("/orders/broken/1").send().await.status(), 500);
    assert_eq!(
        client
            .request(Method::HEAD, "/orders/1")
            .send()
            .await
            .status(),
        200
    );
    app.close().await.unwrap();

    let (text, scrape) = scrape(&recorder);
    // Dots become underscores, in names and in label names; a duration's name ends in its unit.
    let duration = "http_server_request_duration_seconds";
    let ok = [
        ("http_request_method", "GET"),
        ("http_route", "/orders/{id}"),
        ("http_response_status_code", "200"),
    ];
    assert_eq!(observations(&scrape, duration, &ok), 3.0, "{text}");
    let durations = metric(&scrape, duration, Type::Histogram);
    assert!(
        samples(durations, &ok)
            .iter()
            .all(|s| label(s, "error_type").is_none())
    );
    let head = [
        ("http_request_method", "HEAD"),
        ("http_route", "/orders/{id}"),
    ];
    assert_eq!(observations(&scrape, duration, &head), 1.0, "{text}");
    let not_found = [
        ("http_route", "unmatched"),
        ("http_response_status_code", "404"),
    ];
    assert_eq!(observations(&scrape, duration, &not_found), 1.0, "{text}");
    // A path without a route for the method: the path's template.
    let not_allowed = [
        ("http_request_method", "DELETE"),
        ("http_route", "/orders/{id}"),
        ("http_response_status_code", "405"),
    ];
    assert_eq!(observations(&scrape, duration, &not_allowed), 1.0, "{text}");
    let failed = [
        ("http_route", "/orders/broken/{id}"),
        ("http_response_status_code", "500"),
        ("error_type", "500"),
    ];
    assert_eq!(observations(&scrape, duration, &failed), 1.0, "{text}");
    // Never the raw path.
    assert!(!text.contains("/orders/1"), "{text}");
    assert!(!text.contains("/nowhere"), "{text}");
    let active = "http_server_active_requests";
    assert_eq!(
        gauge(&scrape, active, &[("http_request_method", "GET")]),
        0.0
    );

    // The providers: built, failed, disposed.
    let built = "green_tea_provider_build_duration_seconds";
    let greeting_ok = [("provider", "greeting"), ("outcome", "success")];
    assert_eq!(observations(&scrape, built, &greeting_ok), 1.0, "{text}");
    let flaky_failed = [("provider", "flaky"), ("outcome", "error")];
    assert_eq!(observations(&scrape, built, &flaky_failed), 1.0, "{text}");
    let disposed = "green_tea_provider_dispose_duration_seconds";
    assert_eq!(observations(&scrape, disposed, &greeting_ok), 1.0, "{text}");
    let disposes = metric(&scrape, disposed, Type::Histogram);
    assert!(samples(disposes, &[("provider", "flaky")]).is_empty());
    // Disposed on close: not built any more.
    let is_built = "green_tea_provider_built";
    assert_eq!(gauge(&scrape, is_built, &[("provider", "greeting")]), 0.0);
    assert_eq!(gauge(&scrape, is_built, &[("provider", "flaky")]), 0.0);
    // Every metric has its help text, under its Prometheus name.
    for name in [duration, active, built, disposed, is_built] {
        assert!(
            text.contains(&format!("# HELP {name} ")),
            "{name} in\n{text}"
        );
    }
}

#[tokio::test]
async fn the_built_gauge_follows_the_provider() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let app = orders_app();
    let built = |snapshotter: &metrics_util::debugging::Snapshotter| {
        let snapshot = snapshotter.snapshot().into_vec();
        let values = values(&snapshot, MetricKind::Gauge, "green_tea.provider.built");
        values.get("provider=greeting").cloned()
    };
    // Registered at build, not built yet.
    assert_eq!(built(&snapshotter), Some(vec![0.0]));
    assert_eq!(
        app.get::<String>("greeting").await.unwrap().as_str(),
        "hello"
    );
    assert_eq!(built(&snapshotter), Some(vec![1.0]));
    app.close().await.unwrap();
    assert_eq!(built(&snapshotter), Some(vec![0.0]));
}

/// A debugging recorder's snapshot, as a list.
type Snapshot = Vec<(
    CompositeKey,
    Option<metrics::Unit>,
    Option<metrics::SharedString>,
    DebugValue,
)>;

/// Each series of `name` and `kind`, by its labels (`k=v,k=v`), as a list of values: the
/// histogram's observations, or the one value of a gauge or counter.
fn values(snapshot: &Snapshot, kind: MetricKind, name: &str) -> HashMap<String, Vec<f64>> {
    snapshot
        .iter()
        .filter(|(key, ..)| key.kind() == kind && key.key().name() == name)
        .map(|(key, _, _, value)| {
            let labels: Vec<String> = key
                .key()
                .labels()
                .map(|l| format!("{}={}", l.key(), l.value()))
                .collect();
            let values = match value {
                DebugValue::Histogram(values) => values.iter().map(|v| v.0).collect(),
                DebugValue::Gauge(value) => vec![value.0],
                DebugValue::Counter(value) => vec![*value as f64],
            };
            (labels.join(","), values)
        })
        .collect()
}

/// The observations of each histogram `name`, by its labels.
fn histograms(snapshot: &Snapshot, name: &str) -> HashMap<String, Vec<f64>> {
    values(snapshot, MetricKind::Histogram, name)
}

/// The label sets of `http.server.request.duration`, sorted, with their observations.
fn durations_by_labels(snapshot: &Snapshot) -> (Vec<String>, HashMap<String, Vec<f64>>) {
    let durations = histograms(snapshot, "http.server.request.duration");
    let mut keys: Vec<String> = durations.keys().cloned().collect();
    keys.sort();
    (keys, durations)
}

#[tokio::test]
async fn durations_are_seconds_and_each_request_is_one_observation() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let app = orders_app();
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/orders/1").send().await.status(), 200);
    assert_eq!(client.get("/orders/2").send().await.status(), 200);
    app.close().await.unwrap();
    // A snapshot takes the histograms' observations: one snapshot for every assertion.
    let snapshot = snapshotter.snapshot().into_vec();
    let durations = histograms(&snapshot, "http.server.request.duration");
    let key = "http.request.method=GET,http.route=/orders/{id},http.response.status_code=200";
    let observed = &durations[key];
    assert_eq!(observed.len(), 2, "{durations:?}");
    assert!(observed.iter().all(|s| *s > 0.0), "{observed:?}");
    let built = histograms(&snapshot, "green_tea.provider.build.duration");
    assert_eq!(built["provider=greeting,outcome=success"].len(), 1);
}

#[tokio::test]
async fn methods_outside_the_conventions_are_other_and_the_gauge_returns_to_zero() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let app = App::builder()
        .route(Route::any("/purge", |_: RequestContext| async { "purged" }))
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let purge = Method::from_bytes(b"PURGE").unwrap();
    assert_eq!(client.request(purge, "/purge").send().await.status(), 200);
    let snapshot = snapshotter.snapshot().into_vec();
    let durations = histograms(&snapshot, "http.server.request.duration");
    let key = "http.request.method=_OTHER,http.route=/purge,http.response.status_code=200";
    assert_eq!(durations[key].len(), 1, "{durations:?}");
    let active = values(&snapshot, MetricKind::Gauge, "http.server.active_requests");
    assert_eq!(active["http.request.method=_OTHER"], vec![0.0]);
    app.close().await.unwrap();
}

/// A route that answers more methods and statuses than it keeps handles for still counts
/// each one under its own labels.
#[tokio::test]
async fn a_route_with_many_statuses_counts_each() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let app = App::builder()
        .route(Route::get(
            "/status/{code}",
            |mut request: RequestContext| async move {
                let Path(code) = request.extract::<Path<u16>>().await.unwrap();
                HttpError::with_status(StatusCode::from_u16(code).unwrap(), "as asked")
            },
        ))
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let codes: Vec<u16> = (400..430).collect();
    for round in 0..2 {
        for code in &codes {
            let answered = client.get(&format!("/status/{code}")).send().await;
            assert_eq!(answered.status().as_u16(), *code, "round {round}");
        }
    }
    app.close().await.unwrap();
    let snapshot = snapshotter.snapshot().into_vec();
    let durations = histograms(&snapshot, "http.server.request.duration");
    for code in codes {
        let key = format!(
            "http.request.method=GET,http.route=/status/{{code}},http.response.status_code={code}"
        );
        assert_eq!(durations[&key].len(), 2, "{code}: {durations:?}");
    }
}

/// Under the app's global layers, the request is measured outside them, once; a request a
/// layer answers itself is labelled with the route its path and method lead to.
#[tokio::test]
async fn under_global_layers_a_request_is_measured_once_around_them() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let app = App::builder()
        .route(Route::post("/notes/{id}", |_: RequestContext| async {
            "kept"
        }))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(8))
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(
        client.post("/notes/1").body("short").send().await.status(),
        200
    );
    let long = "far too long for the layer";
    let long = client
        .post("/notes/2")
        .header("content-length", &long.len().to_string())
        .body(long);
    assert_eq!(long.send().await.status(), 413);
    app.close().await.unwrap();
    let snapshot = snapshotter.snapshot().into_vec();
    let (keys, durations) = durations_by_labels(&snapshot);
    assert_eq!(
        keys,
        [
            "http.request.method=POST,http.route=/notes/{id},http.response.status_code=200",
            "http.request.method=POST,http.route=/notes/{id},http.response.status_code=413",
        ]
    );
    assert!(
        durations.values().all(|observed| observed.len() == 1),
        "{durations:?}"
    );
    let active = values(&snapshot, MetricKind::Gauge, "http.server.active_requests");
    assert_eq!(active["http.request.method=POST"], vec![0.0]);
}

/// A global layer that rewrites the path sends the request to another route than the one it
/// arrived for: the label is the route the dispatch took; an unknown path that a layer sends
/// nowhere stays `unmatched`.
#[tokio::test]
async fn under_a_layer_that_rewrites_the_path_the_route_taken_is_the_label() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let rewrite = tower::util::MapRequestLayer::new(|mut request: http::Request<_>| {
        if request.uri().path() == "/old/notes" {
            *request.uri_mut() = http::Uri::from_static("/notes");
        }
        request
    });
    let app = App::builder()
        .route(Route::get("/notes", |_: RequestContext| async { "notes" }))
        .route(Route::get("/old/{what}", |_: RequestContext| async {
            "never reached"
        }))
        .layer(rewrite)
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/old/notes").send().await.text(), "notes");
    assert_eq!(client.get("/nowhere").send().await.status(), 404);
    app.close().await.unwrap();
    let (keys, _) = durations_by_labels(&snapshotter.snapshot().into_vec());
    assert_eq!(
        keys,
        [
            "http.request.method=GET,http.route=/notes,http.response.status_code=200",
            "http.request.method=GET,http.route=unmatched,http.response.status_code=404",
        ]
    );
}

#[provider(provides = "exploding")]
fn exploding() -> u8 {
    panic!("no config")
}

#[derive(Default)]
struct Leaky;

#[provider(provides = "leaky")]
impl Leaky {
    fn provide(&self) -> u8 {
        1
    }

    async fn dispose(&self, _value: &u8) -> Result<(), BoxError> {
        Err("the socket would not close".into())
    }
}

/// Failed builds and disposes are counted by what went wrong.
#[tokio::test]
async fn failed_builds_and_disposes_carry_their_outcome() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let container = green_tea::Container::builder()
        .provider(exploding::provider())
        .provider(Leaky)
        .build()
        .unwrap();
    assert!(container.get::<u8>("exploding").await.is_err());
    assert_eq!(*container.get::<u8>("leaky").await.unwrap(), 1);
    assert!(container.close().await.is_err());
    let snapshot = snapshotter.snapshot().into_vec();
    let built = histograms(&snapshot, "green_tea.provider.build.duration");
    assert_eq!(
        built["provider=exploding,outcome=panic"].len(),
        1,
        "{built:?}"
    );
    assert_eq!(
        built["provider=Leaky,outcome=success"].len(),
        1,
        "{built:?}"
    );
    let disposed = histograms(&snapshot, "green_tea.provider.dispose.duration");
    assert_eq!(disposed.len(), 1, "{disposed:?}");
    assert_eq!(disposed["provider=Leaky,outcome=error"].len(), 1);
    let is_built = values(&snapshot, MetricKind::Gauge, "green_tea.provider.built");
    assert_eq!(is_built["provider=exploding"], vec![0.0]);
    assert_eq!(is_built["provider=Leaky"], vec![0.0]);
}

#[derive(Default)]
struct Stuck;

#[provider(provides = "stuck")]
impl Stuck {
    fn provide(&self) -> u8 {
        2
    }

    async fn dispose(&self, _value: &u8) {
        std::future::pending::<()>().await;
    }
}

/// A dispose abandoned at its timeout is counted as `timeout`.
#[tokio::test]
async fn a_dispose_past_its_timeout_is_counted_as_timeout() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let container = green_tea::Container::builder()
        .provider(Stuck)
        .dispose_timeout(std::time::Duration::from_millis(1))
        .build()
        .unwrap();
    assert_eq!(*container.get::<u8>("stuck").await.unwrap(), 2);
    assert!(container.close().await.is_err());
    let snapshot = snapshotter.snapshot().into_vec();
    let disposed = histograms(&snapshot, "green_tea.provider.dispose.duration");
    assert_eq!(
        disposed["provider=Stuck,outcome=timeout"].len(),
        1,
        "{disposed:?}"
    );
}

/// A request to an app that is closing is answered 503 before routing: no route.
#[tokio::test]
async fn a_request_refused_while_closing_is_unmatched() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let app = orders_app();
    app.close().await.unwrap();
    let client = TestClient::new(app);
    assert_eq!(client.get("/orders/1").send().await.status(), 503);
    let snapshot = snapshotter.snapshot().into_vec();
    let durations = histograms(&snapshot, "http.server.request.duration");
    let key =
        "http.request.method=GET,http.route=unmatched,http.response.status_code=503,error.type=503";
    assert_eq!(durations[key].len(), 1, "{durations:?}");
}

#[derive(Settings)]
#[settings(provides = "greetingSettings", prefix = "GREETING", discover = false)]
struct GreetingSettings {
    #[settings(default = "hello", reload)]
    word: String,
    /// Not marked `reload`: a change of it needs a restart.
    #[settings(default = "0")]
    #[allow(dead_code)]
    port: u16,
}

/// The `green_tea.reloads` counts by outcome label, in label order.
fn reloads_by_outcome(snapshot: &Snapshot) -> Vec<(String, Vec<f64>)> {
    let reloads = values(snapshot, MetricKind::Counter, "green_tea.reloads");
    let mut counted: Vec<(String, Vec<f64>)> = reloads.into_iter().collect();
    counted.sort_by(|a, b| a.0.cmp(&b.0));
    counted
}

/// Reloads counted by outcome, the generation served, and the built gauge of a provider a
/// reload built anew: still 1 once the generation it replaced has disposed its old value.
#[tokio::test]
async fn reloads_are_counted_by_outcome_and_the_generation_is_a_gauge() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let dir = std::env::temp_dir().join(format!("green-tea-reload-metrics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("settings.toml");
    std::fs::write(&file, "[greeting]\nword = \"hello\"\n").unwrap();
    let app = App::builder()
        .settings(
            green_tea::settings::Sources::from_env_map(Vec::<(String, String)>::new()).file(&file),
        )
        .provider(GreetingSettings::provider())
        .provider(
            green_tea::ProviderFn::new("greeting", |needs| async move {
                Ok::<_, BoxError>(needs.get::<GreetingSettings>(0)?.word.clone())
            })
            .needs::<GreetingSettings>("greetingSettings"),
        )
        .build()
        .unwrap();
    app.start().await.unwrap();
    app.get::<String>("greeting").await.unwrap();

    assert!(app.reload().await.unwrap().is_none());
    std::fs::write(&file, "[greeting]\nword = \"hi\"\n").unwrap();
    app.reload().await.unwrap().unwrap();
    std::fs::write(&file, "[greeting]\nword = \"hey\"\nport = 1\n").unwrap();
    app.reload().await.unwrap_err();
    std::fs::write(&file, "[greeting]\nword = 3s\n").unwrap();
    app.reload().await.unwrap_err();
    // The replaced generation disposes its greeting once nothing holds it.
    for _ in 0..1000 {
        tokio::task::yield_now().await;
    }

    let snapshot = snapshotter.snapshot().into_vec();
    assert_eq!(
        reloads_by_outcome(&snapshot),
        [
            ("outcome=invalid".to_owned(), vec![1.0]),
            ("outcome=reloaded".to_owned(), vec![1.0]),
            ("outcome=restart_needed".to_owned(), vec![1.0]),
            ("outcome=unchanged".to_owned(), vec![1.0]),
        ]
    );
    let generation = values(&snapshot, MetricKind::Gauge, "green_tea.generation");
    assert_eq!(generation.get(""), Some(&vec![1.0]));
    // The old greeting was disposed (one dispose), and the gauge is the new one's.
    let disposed = histograms(&snapshot, "green_tea.provider.dispose.duration");
    assert_eq!(
        disposed
            .get("provider=greeting,outcome=success")
            .map(Vec::len),
        Some(1)
    );
    let built = values(&snapshot, MetricKind::Gauge, "green_tea.provider.built");
    assert_eq!(built.get("provider=greeting"), Some(&vec![1.0]));
    app.close().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

/// A container's own reloads are counted as an app's are, with their two outcomes of their
/// own (`replaced`, `of_an_app`); closing the replaced generation leaves the built gauge to
/// the one that serves.
#[tokio::test]
async fn a_container_s_reloads_are_counted_too() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _installed = metrics::set_default_local_recorder(&recorder);
    let dir = std::env::temp_dir().join(format!(
        "green-tea-container-reload-metrics-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("settings.toml");
    std::fs::write(&file, "[greeting]\nword = \"hello\"\n").unwrap();
    let sources =
        || green_tea::settings::Sources::from_env_map(Vec::<(String, String)>::new()).file(&file);
    let greeting = || {
        green_tea::ProviderFn::new("greeting", |needs| async move {
            Ok::<_, BoxError>(needs.get::<GreetingSettings>(0)?.word.clone())
        })
        .needs::<GreetingSettings>("greetingSettings")
    };
    let old = green_tea::Container::builder()
        .settings(sources())
        .provider(GreetingSettings::provider())
        .provider(greeting())
        .build()
        .unwrap();
    old.build_all().await.unwrap();

    assert!(old.reload().await.unwrap().is_none());
    std::fs::write(&file, "[greeting]\nword = \"hi\"\n").unwrap();
    let (next, _) = old.reload().await.unwrap().unwrap();
    assert_eq!(old.reload().await.unwrap_err().kind(), "replaced");
    old.close().await.unwrap();
    // An app of its own settings alone (its own `greeting` would register the gauge anew).
    let app = App::builder()
        .settings(sources())
        .provider(GreetingSettings::provider())
        .build()
        .unwrap();
    assert_eq!(
        app.container().reload().await.unwrap_err().kind(),
        "of_an_app"
    );

    let snapshot = snapshotter.snapshot().into_vec();
    assert_eq!(
        reloads_by_outcome(&snapshot),
        [
            ("outcome=of_an_app".to_owned(), vec![1.0]),
            ("outcome=reloaded".to_owned(), vec![1.0]),
            ("outcome=replaced".to_owned(), vec![1.0]),
            ("outcome=unchanged".to_owned(), vec![1.0]),
        ]
    );
    // The container's generation; the app's refused reload left it alone.
    let generation = values(&snapshot, MetricKind::Gauge, "green_tea.generation");
    assert_eq!(generation.get(""), Some(&vec![1.0]));
    let built = values(&snapshot, MetricKind::Gauge, "green_tea.provider.built");
    assert_eq!(built.get("provider=greeting"), Some(&vec![1.0]));
    next.close().await.unwrap();
    app.close().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
