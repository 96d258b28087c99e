//! What a request pays for the graph's vocabulary, in allocations: a route that reads a list of
//! contributions (`All`), an optional need (present or absent) or a decorated key allocates
//! exactly as much per request as a route that reads one plain value. Counted by dhat's heap
//! profiler in its testing mode, around requests sent in process. And the liveness route costs
//! as much in an app of two hundred built providers as in an empty one (it reads three flags,
//! never the app's health). dhat's counts are the process's: the tests take turns
//! (`ONE_AT_A_TIME`), each on one thread.

use std::sync::Arc;

use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::test::TestClient;
use green_tea::{App, ProviderFn};

#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

/// Held by each test: one dhat profiler at a time, and counts no other test adds to.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Allocations so far (the process's: one test at a time, on one thread).
fn allocations() -> u64 {
    dhat::HeapStats::get().total_blocks
}

trait Notifier: Send + Sync {
    fn len(&self) -> usize;
}
struct Channel(&'static str);
impl Notifier for Channel {
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// A two-byte answer from every route, so that only the reading differs.
fn answer(n: usize) -> &'static str {
    if n > 0 { "ok" } else { "no" }
}

fn app() -> App {
    App::builder()
        .value("plain", 7_usize)
        .value(
            "notifiers[]",
            Arc::new(Channel("email")) as Arc<dyn Notifier>,
        )
        .value("notifiers[]", Arc::new(Channel("sms")) as Arc<dyn Notifier>)
        .value(
            "notifiers[]",
            Arc::new(Channel("push")) as Arc<dyn Notifier>,
        )
        .value("cache", 3_usize)
        .value("payments", 1_usize)
        .decorator(
            ProviderFn::new("payments", |needs| async move {
                Ok(*needs.get::<usize>(0)? + 1)
            })
            .needs::<usize>("payments"),
        )
        .route(
            Route::get("/plain", |ctx: RequestContext| async move {
                answer(*ctx.need_ref::<usize>(0).unwrap())
            })
            .needs::<usize>("plain"),
        )
        .route(
            Route::get("/list", |ctx: RequestContext| async move {
                let all = ctx.need_all::<Arc<dyn Notifier>>(0).unwrap();
                answer(all.iter().map(|n| n.len()).sum())
            })
            .needs::<Arc<dyn Notifier>>("notifiers[]"),
        )
        .route(
            Route::get("/present", |ctx: RequestContext| async move {
                answer(
                    ctx.need_optional_ref::<usize>(0)
                        .unwrap()
                        .copied()
                        .unwrap_or(0),
                )
            })
            .needs::<usize>("cache?"),
        )
        .route(
            Route::get("/absent", |ctx: RequestContext| async move {
                answer(ctx.need_optional_ref::<usize>(0).unwrap().map_or(1, |_| 0))
            })
            .needs::<usize>("nothing?"),
        )
        .route(
            Route::get("/decorated", |ctx: RequestContext| async move {
                answer(*ctx.need_ref::<usize>(0).unwrap())
            })
            .needs::<usize>("payments"),
        )
        .build()
        .unwrap()
}

/// Allocations of one request to `path`, once its providers are built: the fewest of three
/// requests. dhat counts the process's allocations, and the test harness's own thread may
/// allocate while a request runs (reporting the test that finished before this one took its
/// turn): that only ever adds, about one run in sixty, so the fewest is the request's own.
fn per_request(runtime: &tokio::runtime::Runtime, client: &TestClient, path: &str) -> u64 {
    let send = || runtime.block_on(async { client.get(path).send().await.text() });
    assert_eq!(send(), "ok", "{path}"); // builds what the route needs
    (0..3)
        .map(|_| {
            let before = allocations();
            assert_eq!(send(), "ok", "{path}");
            allocations() - before
        })
        .min()
        .expect("three requests")
}

#[test]
fn reading_a_list_an_optional_need_or_a_decorated_key_allocates_nothing_more() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let _profiler = dhat::Profiler::builder().testing().build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let app = app();
    let client = TestClient::new(app.clone());
    let plain = per_request(&runtime, &client, "/plain");
    for path in ["/list", "/present", "/absent", "/decorated"] {
        assert_eq!(
            per_request(&runtime, &client, path),
            plain,
            "{path} allocates as much as /plain"
        );
    }
    runtime.block_on(app.close()).unwrap();
}

/// An app with `providers` providers, all built by `start()`, and the health routes.
fn app_of(providers: usize) -> App {
    let builder = (0..providers).fold(App::builder(), |builder, n| {
        builder.provider(ProviderFn::new(
            format!("p{n}"),
            move |_| async move { Ok(n) },
        ))
    });
    builder
        .route(Route::get("/plain", |_: RequestContext| async { "ok" }))
        .health_routes("/healthz", "/readyz")
        .build()
        .unwrap()
}

#[test]
fn the_liveness_route_costs_the_same_whatever_the_apps_size() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let _profiler = dhat::Profiler::builder().testing().build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let per_probe = |app: &App| {
        runtime.block_on(app.start()).unwrap();
        let client = TestClient::new(app.clone());
        let probe = || {
            runtime.block_on(async {
                let live = client.get("/healthz").send().await;
                assert_eq!(live.status(), 200);
                live.text()
            })
        };
        assert_eq!(probe(), r#"{"closed":false,"draining":false,"live":true}"#);
        let before = allocations();
        probe();
        allocations() - before
    };
    let (empty, large) = (app_of(0), app_of(200));
    assert_eq!(per_probe(&large), per_probe(&empty));
    runtime.block_on(empty.close()).unwrap();
    runtime.block_on(large.close()).unwrap();
}
