//! `when` through the macros: a provider, a decorator, a worker and a settings type under
//! conditions on switches (one condition, a negated one, a set of outcomes, and a list that
//! must all hold), registered by hand and found by `discover_in` (which sees only this
//! module), each on in one shape and off in the other; a key that is off, asked for by name,
//! is GT0106. The switches are decided from an environment map or by `override_switch`, never
//! from the process environment. A step's and a route's conditions are checked as what the
//! macros make of them: the step's descriptor and the route's `when`, in the order written.

use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::ContainerBuilder;
use green_tea::prelude::*;
use green_tea::settings::Sources;
use green_tea::steps::Step;
use green_tea::workers::Shutdown;

/// What the switches read.
#[derive(Settings, Debug)]
#[settings(provides = "flags", prefix = "FLAGS")]
struct Flags {
    #[settings(default = "false")]
    cache: bool,
    #[settings(default = "fake")]
    gateway: String,
}

/// Read, and provided, only when the cache is on.
#[derive(Settings, Debug)]
#[settings(
    provides = "priceCacheSettings",
    prefix = "PRICE_CACHE",
    when = "cacheOn"
)]
struct CacheSettings {
    #[settings(default = "64")]
    size: u32,
}

#[provider(provides = "cache", needs = "priceCacheSettings", when = "cacheOn")]
fn cache(settings: &CacheSettings) -> String {
    format!("cache of {}", settings.size)
}

/// On in every shape: through the cache when there is one.
#[provider(provides = "prices", needs = "cache?")]
fn prices(cache: Option<&String>) -> String {
    match cache {
        Some(cache) => format!("prices through the {cache}"),
        None => "prices".to_owned(),
    }
}

/// Wraps `prices` only when the cache is off.
#[decorator(decorates = "prices", when = "!cacheOn")]
fn uncached(prices: &String) -> String {
    format!("{prices}, uncached")
}

/// On only when both hold.
#[provider(provides = "receipts", when = ["cacheOn", "gateway = stripe"])]
fn receipts() -> String {
    "cached stripe receipts".to_owned()
}

/// How many times `settle` started.
#[provider(provides = "settled")]
fn settled() -> AtomicUsize {
    AtomicUsize::new(0)
}

/// Started only for a real gateway.
#[worker(needs = "settled", when = "gateway = stripe | paypal")]
async fn settle(settled: &AtomicUsize, shutdown: Shutdown) -> Result<(), BoxError> {
    settled.fetch_add(1, Ordering::SeqCst);
    shutdown.requested().await;
    Ok(())
}

/// The settings from `vars`, and the switches `cacheOn` and `gateway`, which read `Flags`.
fn builder(vars: &[(&'static str, &'static str)]) -> ContainerBuilder {
    Container::builder()
        .settings(Sources::from_env_map(vars.iter().copied()))
        .switch(green_tea::switches::Switch::new("cacheOn", |s: &Flags| s.cache).reads("cache"))
        .switch(
            green_tea::switches::Switch::one_of(
                "gateway",
                ["stripe", "paypal", "fake"],
                |s: &Flags| s.gateway.as_str(),
            )
            .reads("gateway"),
        )
}

/// Everything above, registered by hand.
fn by_hand(builder: ContainerBuilder) -> ContainerBuilder {
    builder
        .provider(Flags::provider())
        .provider(CacheSettings::provider())
        .provider(cache::provider())
        .provider(prices::provider())
        .decorator(uncached::decorator())
        .provider(receipts::provider())
        .provider(settled::provider())
        .worker(settle::worker())
}

/// Everything above, discovered.
fn discovered(builder: ContainerBuilder) -> ContainerBuilder {
    builder.discover_in(&[module_path!()])
}

/// Both ways of registering the same declarations.
fn registered(vars: &[(&'static str, &'static str)]) -> [(&'static str, ContainerBuilder); 2] {
    [
        ("by hand", by_hand(builder(vars))),
        ("discovered", discovered(builder(vars))),
    ]
}

fn assert_off<T: std::fmt::Debug>(result: Result<T, ProvideError>, how: &str) {
    let err = result.unwrap_err();
    assert_eq!(err.code(), Some("GT0106"), "{how}: {err}");
}

/// Starts the workers and says whether `settle` ran before `close()`.
async fn settle_ran(container: Container, expect: bool) -> bool {
    let settled = container.get::<AtomicUsize>("settled").await.unwrap();
    container.start_workers().await.unwrap();
    if expect {
        while settled.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    }
    container.close().await.unwrap();
    settled.load(Ordering::SeqCst) > 0
}

#[tokio::test]
async fn on_in_the_shape_its_conditions_hold() {
    let vars = [
        ("FLAGS_CACHE", "true"),
        ("FLAGS_GATEWAY", "stripe"),
        ("PRICE_CACHE_SIZE", "128"),
    ];
    for (how, builder) in registered(&vars) {
        let container = builder.build().unwrap();
        let settings = container
            .get::<CacheSettings>("priceCacheSettings")
            .await
            .unwrap();
        assert_eq!(settings.size, 128, "{how}");
        assert_eq!(
            *container.get::<String>("cache").await.unwrap(),
            "cache of 128",
            "{how}"
        );
        // The decorator under `!cacheOn` is off.
        assert_eq!(
            *container.get::<String>("prices").await.unwrap(),
            "prices through the cache of 128",
            "{how}"
        );
        assert_eq!(
            *container.get::<String>("receipts").await.unwrap(),
            "cached stripe receipts",
            "{how}"
        );
        assert!(settle_ran(container, true).await, "{how}");
    }
}

#[tokio::test]
async fn off_in_the_shape_they_do_not() {
    for (how, builder) in registered(&[]) {
        let container = builder.build().unwrap();
        assert_off(container.get::<String>("cache").await, how);
        assert_off(
            container.get::<CacheSettings>("priceCacheSettings").await,
            how,
        );
        assert_off(container.get::<String>("receipts").await, how);
        // The decorator under `!cacheOn` is on.
        assert_eq!(
            *container.get::<String>("prices").await.unwrap(),
            "prices, uncached",
            "{how}"
        );
        assert!(!settle_ran(container, false).await, "{how}");
    }
}

#[tokio::test]
async fn a_list_of_conditions_is_on_only_when_all_hold() {
    let vars = [("FLAGS_CACHE", "true"), ("FLAGS_GATEWAY", "paypal")];
    for (how, builder) in registered(&vars) {
        let container = builder.build().unwrap();
        assert_eq!(
            *container.get::<String>("cache").await.unwrap(),
            "cache of 64",
            "{how}"
        );
        assert_off(container.get::<String>("receipts").await, how);
        assert!(settle_ran(container, true).await, "{how}");
    }
}

#[tokio::test]
async fn an_overridden_switch_decides_the_shape() {
    let vars = [("FLAGS_CACHE", "true"), ("FLAGS_GATEWAY", "stripe")];
    for (how, builder) in registered(&vars) {
        let container = builder
            .override_switch("cacheOn = false")
            .override_switch("gateway = fake")
            .build()
            .unwrap();
        assert_off(container.get::<String>("cache").await, how);
        assert_off(container.get::<String>("receipts").await, how);
        assert_eq!(
            *container.get::<String>("prices").await.unwrap(),
            "prices, uncached",
            "{how}"
        );
        assert!(!settle_ran(container, false).await, "{how}");
    }
}

/// A step under a list of conditions.
#[step(provides = "receipt", when = ["cacheOn", "gateway = stripe | paypal"])]
fn receipt() -> String {
    "receipt".to_owned()
}

/// A step under one condition, and a guard under a negated one.
#[step(provides = "quote", needs = "receipt", when = "gateway = stripe")]
fn price_quote(receipt: &String) -> String {
    format!("quote for the {receipt}")
}

#[step(when = "!cacheOn")]
fn uncached_guard() {}

#[test]
fn a_step_s_descriptor_carries_its_conditions_in_order() {
    assert_eq!(
        receipt::step().descriptor().when,
        ["cacheOn", "gateway = stripe | paypal"]
    );
    assert_eq!(price_quote::step().descriptor().when, ["gateway = stripe"]);
    assert_eq!(uncached_guard::step().descriptor().when, ["!cacheOn"]);
}

struct Checkout;

/// The block's condition, on every route, then each method's own.
#[route("/checkout", when = "gateway = stripe | paypal")]
impl Checkout {
    #[get("/")]
    fn summary() -> &'static str {
        "summary"
    }

    // `gateway = stripe | paypal` is the block's already: not repeated.
    #[post("/cached", when = ["cacheOn", "gateway = stripe | paypal", "!mailOn"])]
    fn cached() -> &'static str {
        "cached"
    }
}

struct Debugging;

#[route("/debug")]
impl Debugging {
    #[get("/", when = "debugRoutes")]
    fn state() -> &'static str {
        "state"
    }

    #[get("/always")]
    fn always() -> &'static str {
        "always"
    }
}

/// `Debug` shows a route's conditions: `when: [...]`.
fn conditions(routes: Vec<green_tea::routing::Route>) -> Vec<String> {
    routes
        .iter()
        .map(|route| {
            let printed = format!("{route:?}");
            let start = printed.find("when: [").expect("`Debug` prints `when`");
            let end = start + printed[start..].find(']').expect("a closed list");
            printed[start..=end].to_owned()
        })
        .collect()
}

#[test]
fn a_route_carries_the_block_s_conditions_then_its_method_s() {
    assert_eq!(
        conditions(Checkout::routes()),
        [
            r#"when: ["gateway = stripe | paypal"]"#,
            r#"when: ["gateway = stripe | paypal", "cacheOn", "!mailOn"]"#,
        ]
    );
    assert_eq!(
        conditions(Debugging::routes()),
        [r#"when: ["debugRoutes"]"#, "when: []"]
    );
}

/// The macros' steps and routes in an app: served, and run, only in the shapes their
/// conditions hold.
#[tokio::test]
async fn an_app_serves_the_macros_steps_and_routes_only_where_they_are_on() {
    use green_tea::test::TestClient;
    for (gateway, served) in [("stripe", true), ("fake", false)] {
        let vars = [("FLAGS_CACHE", "true"), ("FLAGS_GATEWAY", gateway)];
        let app = green_tea::App::builder()
            .settings(Sources::from_env_map(vars))
            .provider(Flags::provider())
            .switch(green_tea::switches::Switch::new("cacheOn", |s: &Flags| {
                s.cache
            }))
            .switch(green_tea::switches::Switch::one_of(
                "gateway",
                ["stripe", "paypal", "fake"],
                |s: &Flags| s.gateway.as_str(),
            ))
            .step(receipt::step())
            .routes(Checkout::routes().into_iter().take(1))
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        let status = client.get("/checkout").send().await.status();
        assert_eq!(status, if served { 200 } else { 404 }, "gateway {gateway}");
        app.close().await.unwrap();
    }
}
