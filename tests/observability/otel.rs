//! green-tea's spans exported to OpenTelemetry through tracing-opentelemetry, read back from
//! the SDK's in-memory exporter: the `route` span's attributes by the HTTP conventions, and
//! the builds a request started linked to it.

use green_tea::prelude::*;
use green_tea::test::TestClient;
use opentelemetry::trace::{SpanId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt;

#[provider(provides = "greetingWord")]
async fn greeting_word() -> String {
    // A build that waits: the request that needs it waits with it.
    tokio::task::yield_now().await;
    "hello".to_owned()
}

#[provider(provides = "greeting", needs = ["greetingWord"])]
fn greeting(word: &String) -> String {
    format!("{word}, ")
}

struct Hello;

#[route("/hello")]
impl Hello {
    #[get("/{name}")]
    async fn hello(Path(name): Path<String>, #[needs("greeting")] greeting: &String) -> String {
        format!("{greeting}{name}")
    }
}

/// The spans the app exports while `run` drives it, ended and exported.
async fn exported<F: std::future::Future<Output = ()>>(
    run: impl FnOnce(App) -> F,
) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        // The request and step spans are DEBUG.
        .with(tracing_subscriber::filter::LevelFilter::DEBUG)
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = App::builder()
        .provider(greeting_word::provider())
        .provider(greeting::provider())
        .routes(Hello::routes())
        .build()
        .unwrap();
    run(app.clone()).await;
    app.close().await.unwrap();
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    let found = span.attributes.iter().find(|kv| kv.key.as_str() == key);
    found.map(|kv| kv.value.as_str().into_owned())
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.name == name).collect()
}

#[tokio::test]
async fn the_request_span_carries_the_http_conventions_attributes() {
    let spans = exported(|app| async move {
        let client = TestClient::new(app);
        assert_eq!(client.get("/hello/ada").send().await.text(), "hello, ada");
        assert_eq!(client.get("/nowhere").send().await.status(), 404);
    })
    .await;
    // One `route` span: a 404 is answered before routing, without one.
    let requests = named(&spans, "route");
    assert_eq!(requests.len(), 1, "{spans:#?}");
    let request = requests[0];
    assert_eq!(
        attribute(request, "http.request.method").as_deref(),
        Some("GET")
    );
    assert_eq!(
        attribute(request, "http.route").as_deref(),
        Some("/hello/{name}")
    );
    assert_eq!(
        attribute(request, "http.response.status_code").as_deref(),
        Some("200")
    );
    // The template, never the path.
    assert!(
        request
            .attributes
            .iter()
            .all(|kv| !kv.value.as_str().contains("ada"))
    );
}

#[tokio::test]
async fn builds_a_request_started_are_linked_to_it() {
    let spans = exported(|app| async move {
        let client = TestClient::new(app);
        assert_eq!(client.get("/hello/ada").send().await.status(), 200);
        assert_eq!(client.get("/hello/bob").send().await.status(), 200);
    })
    .await;
    let requests = named(&spans, "route");
    assert_eq!(requests.len(), 2, "{spans:#?}");
    let first = requests
        .iter()
        .min_by_key(|s| s.start_time)
        .expect("two requests")
        .span_context
        .clone();
    let builds = named(&spans, "provide");
    let mut providers: Vec<String> = builds
        .iter()
        .filter_map(|s| attribute(s, "provider"))
        .collect();
    providers.sort();
    // Each built once, by the first request; its own need's build linked to it as well.
    assert_eq!(providers, ["greeting", "greeting_word"]);
    for build in builds {
        // A root span of its own: a build may outlive the request and serves every later one.
        assert_eq!(build.parent_span_id, SpanId::INVALID, "{build:#?}");
        let links: Vec<_> = build.links.iter().map(|l| l.span_context.clone()).collect();
        assert_eq!(links, std::slice::from_ref(&first), "{build:#?}");
    }
}
