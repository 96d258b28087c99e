//! green-tea's spans exported to OpenTelemetry through tracing-opentelemetry, read back from
//! the SDK's in-memory exporter: the `route` span's attributes by the HTTP conventions, the
//! builds a request started linked to it, and a start's builds under its `start` span, each
//! linked to the builds it waited on.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use green_tea::prelude::*;
use green_tea::test::TestClient;
use green_tea::{BoxError, ProviderFn};
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

/// A provider's build that takes `millis` of tokio's time, providing `T::default()`.
fn sleeps<T: Default + Send + 'static>(
    millis: u64,
) -> impl Fn(green_tea::Needs<'static>) -> BoxFuture<'static, Result<T, BoxError>> + Send + Sync {
    move |_| {
        async move {
            tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
            Ok(T::default())
        }
        .boxed()
    }
}

/// The graph of a start: `migrations` waits on `pg`; `billing` on `migrations` and the
/// module's `rates` (which ends first); `cache` runs beside them; `report` is reached by no
/// route, and is built later, lazily.
#[tokio::test(start_paused = true)]
async fn a_starts_builds_nest_under_its_span_and_link_to_what_they_waited_on() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = App::builder()
        .provider(ProviderFn::new("pg", sleeps::<String>(1_000)))
        .provider(ProviderFn::new("migrations", sleeps::<u32>(2_000)).needs::<String>("pg"))
        .module(
            Module::new("pricing")
                .provider(ProviderFn::new("rates", sleeps::<u16>(100)))
                .export("rates"),
        )
        .provider(
            ProviderFn::new("billing", sleeps::<u64>(500))
                .needs::<u32>("migrations")
                .needs::<u16>("pricing::rates"),
        )
        .provider(ProviderFn::new("cache", sleeps::<u8>(2_500)))
        .provider(ProviderFn::new("report", sleeps::<i8>(10)))
        // Its start finds every provider built: no second `start` span.
        .worker(
            green_tea::workers::WorkerFn::new("warmer", |_, shutdown| async move {
                shutdown.requested().await;
                Ok(())
            })
            .needs::<u8>("cache"),
        )
        .route(
            Route::get("/", |_: RequestContext| async { "hi" })
                .needs::<u64>("billing")
                .needs::<u8>("cache"),
        )
        .build()
        .unwrap();
    app.start().await.unwrap();
    let request = tracing::info_span!("request");
    let _ = tracing::Instrument::instrument(app.get::<i8>("report"), request.clone())
        .await
        .unwrap();
    drop(request);
    app.close().await.unwrap();
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();

    let starts = named(&spans, "start");
    assert_eq!(starts.len(), 1, "{spans:#?}");
    let start = starts[0].span_context.span_id();
    let build = |provider: &str| -> &SpanData {
        let found = named(&spans, "provide")
            .into_iter()
            .find(|s| attribute(s, "provider").as_deref() == Some(provider));
        found.unwrap_or_else(|| panic!("no provide span of `{provider}`: {spans:#?}"))
    };
    let links = |span: &SpanData| -> Vec<String> {
        let mut linked: Vec<String> = (span.links.iter())
            .map(|link| {
                let to = spans
                    .iter()
                    .find(|s| s.span_context.span_id() == link.span_context.span_id())
                    .expect("a link to an exported span");
                attribute(to, "provider").unwrap_or_else(|| to.name.to_string())
            })
            .collect();
        linked.sort();
        linked
    };
    for name in ["pg", "migrations", "pricing::rates", "billing", "cache"] {
        let span = build(name);
        assert_eq!(
            span.parent_span_id, start,
            "`{name}` is under the start: {span:#?}"
        );
        assert_eq!(attribute(span, "kind").as_deref(), Some("provider"));
    }
    assert_eq!(links(build("pg")), Vec::<String>::new());
    assert_eq!(links(build("migrations")), ["pg"]);
    assert_eq!(links(build("billing")), ["migrations", "pricing::rates"]);
    assert_eq!(links(build("cache")), Vec::<String>::new());
    assert_eq!(
        attribute(build("pricing::rates"), "module").as_deref(),
        Some("pricing")
    );
    assert_eq!(
        attribute(build("pricing::rates"), "keys").as_deref(),
        Some("pricing::rates")
    );
    assert_eq!(attribute(build("billing"), "module"), None);
    // A lazy build is a root span of its own, linked to what asked for it.
    let report = build("report");
    assert_eq!(report.parent_span_id, SpanId::INVALID, "{report:#?}");
    assert_eq!(links(report), ["request"]);

    // The report says what the spans show.
    let startup = app.startup().unwrap();
    assert_eq!(
        startup.critical_path_names(),
        ["pg", "migrations", "billing"]
    );
}
