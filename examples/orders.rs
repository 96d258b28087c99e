//! The reference guide's orders service: `POST /orders` charges through `billing`, a client
//! behind a circuit breaker; `GET /orders/health` builds nothing.
//!
//! ```sh
//! cargo run --example orders
//! ```
//!
//! Reads `PORT` (3000; 0 picks a free port, printed as `listening on http://...`) and billing's
//! settings (`BillingSettings`, read at `build()`): `BILLING_URL` (if unset, the switch
//! `fakeBilling` is on: a fake billing service starts in-process on a free port, and closes with
//! the app), `BILLING_TIMEOUT` (`2s`),
//! `BILLING_BREAKER_THRESHOLD` (3) and `BILLING_BREAKER_RESET` (`30s`). The settings are
//! strict: a `BILLING_` variable that no setting reads (`BILLING_URLL`) stops it, in the same
//! report as a value that does not read (`BILLING_TIMEOUT=abc`), because a mistyped variable
//! silently left at its default is the mistake to catch here; where a platform sets variables
//! under the prefix (Kubernetes does, for a Service named `billing`), leave `.strict()` out and
//! they are warnings.
//! With `BREAKER_REDIS_URL` set (one node: `redis://127.0.0.1:6379/` or `redis+unix:///path`;
//! a Redis Cluster: `redis+cluster://host:port,host:port`, its seeds; behind Sentinel:
//! `redis+sentinel://host:port,host:port/service`), billing's breaker shares its state with
//! every instance using the same Redis and `BREAKER_NAME` (`billing`); `BREAKER_REFRESH`
//! (`250ms`) is how often it reads the fleet's state, and `BREAKER_CONNECT_TIMEOUT` (`5s`) how
//! long reaching it may take at start (the switch `sharedBreaker`). Without it
//! the breaker is this process's alone. These are settings too (`SharingSettings`), in the same
//! report and as strict: `BREAKER_NAM=x` stops it. Both switches, with what each outcome turns
//! on, are on the explain page (`/_green-tea`), and `build()` checks the graph of all four
//! shapes whichever is today's.
//! `ORDERS_SETTINGS` names a TOML file read below the variables (`[billing] timeout = "5s"`,
//! `[billing.breaker] threshold = 5`). Billing's timeout and its breaker's settings reload
//! without a restart: on SIGHUP (`kill -HUP <pid>`) and when that file changes (it is read
//! every second); a reload that fails (a value that does not read, a change of a setting that
//! needs a restart) changes nothing and says why, and the readiness route's JSON carries the
//! generation serving and the last failed reload.
//! Logs go to stdout, coloured only on a terminal and never with `NO_COLOR` set.
//! Ctrl-C or SIGTERM closes it gracefully: requests drain, then providers are disposed, each
//! logged, dependents first.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use green_tea::prelude::*;
use green_tea::settings::{Secret, Sources};
use green_tea_recipes::billing::fake::{FakeBilling, Mode};
use green_tea_recipes::billing::{
    Billing, BillingApi, BillingClient, BillingError, BillingSettings, GuardedBilling,
};
use green_tea_recipes::circuit_breaker::CircuitBreaker;
use green_tea_recipes::circuit_breaker::shared::{SharedConfig, SharedError};
use metrics_exporter_prometheus::PrometheusBuilder;
use serde::Deserialize;
use serde_json::{Value, json};

/// The body of `POST /orders`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Order {
    user_id: String,
    amount: u64,
}

/// A step: the caller's request id (or `-`), for the log line. It runs on every request
/// whose route needs it, and is never shared between requests.
#[step(provides = "requestId")]
fn request_id(parts: &Parts) -> String {
    parts
        .headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map_or_else(|| "-".to_owned(), str::to_owned)
}

pub(crate) struct Orders;

#[route("/orders")]
impl Orders {
    /// Charges the order's user through the guarded billing client: while the breaker is open
    /// this answers 503 at once, without calling billing.
    #[post("/")]
    async fn create(
        #[body] order: Order,
        #[needs("billing")] billing: &GuardedBilling,
        #[needs("requestId")] request_id: &String,
    ) -> Result<(StatusCode, Json<Value>), HttpError> {
        let charge = billing.charge(&order.user_id, order.amount).await?;
        tracing::info!(%request_id, user = %order.user_id, charge = %charge.id, "order created");
        Ok((StatusCode::CREATED, Json(json!({ "ok": true }))))
    }

    /// Needs nothing, so it builds nothing: not billing, not its client.
    #[get("/health")]
    async fn health() -> Json<Value> {
        Json(json!({ "ok": true }))
    }
}

/// Where billing's breaker shares its state, read at `build()` beside billing's settings (one
/// report, strict alike): `BREAKER_REDIS_URL` (unset: the breaker is this process's alone),
/// `BREAKER_NAME`, `BREAKER_REFRESH` and `BREAKER_CONNECT_TIMEOUT`, or `[breaker]` in the
/// settings file.
#[derive(Settings, Debug)]
#[settings(
    provides = "sharingSettings",
    prefix = "BREAKER",
    discover = false,
    validate = SharingSettings::check
)]
pub(crate) struct SharingSettings {
    /// The Redis to share through: one node, a Cluster or Sentinel, as its URL says. A secret:
    /// a Redis URL often holds a password (the banner shows where, without it).
    pub(crate) redis_url: Option<Secret<String>>,
    /// The fleet: every instance with this name and Redis shares one breaker.
    #[settings(default = "billing")]
    pub(crate) name: String,
    /// How often an instance reads the fleet's state.
    #[settings(default = "250ms")]
    pub(crate) refresh: Duration,
    /// How long reaching the fleet's Redis may take at start: the build timeout of `billing`
    /// where the breaker is shared (a Redis that never answers fails the start, naming it).
    #[settings(default = "5s")]
    pub(crate) connect_timeout: Duration,
}

impl SharingSettings {
    /// Refused at `build()`: a zero interval would read the fleet's state in a busy loop, and
    /// a zero connect timeout would fail every start.
    fn check(&self) -> Result<(), String> {
        if self.refresh.is_zero() {
            return Err(
                "`refresh` is zero: the fleet's state would be read without a pause".into(),
            );
        }
        if self.connect_timeout.is_zero() {
            return Err("`connect_timeout` is zero: billing could never be built".into());
        }
        Ok(())
    }
}

/// The orders app, its settings read from `sources`, billing guarded by `breaker` in every
/// shape (what the end-to-end tests build, including this file).
#[allow(dead_code)]
pub(crate) fn app(sources: Sources, breaker: CircuitBreaker) -> Result<App, green_tea::BuildError> {
    builder(sources)
        .override_provider(Billing::with_breaker(breaker))
        .build()
}

/// The app, not built yet (`main` adds `/metrics`). Two switches decide its shape from the
/// settings: `fakeBilling` (no `BILLING_URL`: billing is a fake started in-process) and
/// `sharedBreaker` (a `BREAKER_REDIS_URL`: the breaker is the fleet's). Each reads only
/// whether its field is set: the Redis URL is a secret.
pub(crate) fn builder(sources: Sources) -> AppBuilder {
    App::builder()
        .settings(sources)
        .provider(BillingSettings::provider())
        .provider(SharingSettings::provider())
        .switch(
            Switch::new("fakeBilling", |billing: &BillingSettings| {
                billing.url.is_none()
            })
            .reads_whether_set("url"),
        )
        .switch(
            Switch::new("sharedBreaker", |sharing: &SharingSettings| {
                sharing.redis_url.is_some()
            })
            .reads_whether_set("redis_url"),
        )
        .when("fakeBilling", |fake| {
            fake.provider(LocalBilling).provider(LocalBillingApi)
        })
        .when("!fakeBilling", |real| real.provider(BillingApi::new()))
        .when("sharedBreaker", |shared| shared.provider(FleetBilling))
        .when("!sharedBreaker", |local| local.provider(Billing::new()))
        .step(request_id::step())
        .routes(Orders::routes())
        // For an operator: liveness and readiness (not ready while billing's client cannot be
        // built, or while draining), billing's breaker in the health, and the graph as a page.
        .health_routes("/healthz", "/readyz")
        .critical("billing")
        .health_check::<GuardedBilling>("billing")
        .explain_page("/_green-tea")
}

/// The app `main` serves: with `/metrics`, what Prometheus scrapes (everything recorded so
/// far, as `metrics` renders it). Its lockfile, `examples/orders.lock`, is checked by the
/// end-to-end tests.
pub(crate) fn served(
    sources: Sources,
    metrics: impl Fn() -> String + Send + Sync + 'static,
) -> AppBuilder {
    let metrics = Arc::new(metrics);
    builder(sources)
        // Billing's timeout and breaker reload without a restart: on SIGHUP, and when the
        // settings file (`ORDERS_SETTINGS`) changes.
        .reload_on_sighup()
        .reload_on_file_change(Duration::from_secs(1))
        .route(Route::get("/metrics", move |_: RequestContext| {
            let text = metrics();
            async move { text }
        }))
}

/// Where `BILLING_URL` is unset: a fake billing service on a free port of 127.0.0.1, started
/// when billing is first needed, closed with the app (after the client of it).
struct LocalBilling;

#[provider(provides = "fakeBilling", discover = false)]
impl LocalBilling {
    async fn provide(&self) -> std::io::Result<FakeBilling> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        FakeBilling::start(listener, Mode::Up).await
    }

    async fn dispose(&self, fake: &FakeBilling) {
        fake.close().await;
    }
}

/// `billingApi` where billing is the fake: the recipe's client of the fake's URL, with
/// billing's timeout.
struct LocalBillingApi;

#[provider(
    provides = "billingApi",
    needs = ["fakeBilling", "billingSettings"],
    discover = false
)]
impl LocalBillingApi {
    fn provide(
        &self,
        fake: &FakeBilling,
        settings: &BillingSettings,
    ) -> Result<BillingClient, BillingError> {
        BillingClient::new(fake.url(), settings.timeout)
    }

    async fn dispose(&self, client: &BillingClient) {
        client.close();
    }
}

/// `billing` where the breaker is the fleet's: made from `billingSettings` as the recipe's
/// `Billing` makes it, its breaker shared through the Redis `sharingSettings` names
/// (asynchronously: `main` builds it at start-up).
struct FleetBilling;

#[provider(
    provides = "billing",
    needs = ["billingApi", "billingSettings", "sharingSettings"],
    discover = false
)]
impl FleetBilling {
    async fn provide(
        &self,
        billing_api: Arc<BillingClient>,
        settings: &BillingSettings,
        sharing: &SharingSettings,
    ) -> Result<GuardedBilling, SharedError> {
        // On only where the URL is set (`sharedBreaker`).
        let url = sharing
            .redis_url
            .as_ref()
            .ok_or_else(|| SharedError::InvalidUrl {
                url: String::new(),
                reason: "BREAKER_REDIS_URL is not set".to_owned(),
            })?;
        let config = settings.breaker_config().name(&sharing.name);
        let redis = SharedConfig::new(url.expose()).refresh_interval(sharing.refresh);
        let breaker = CircuitBreaker::shared(config, redis).await?;
        Ok(GuardedBilling::new(billing_api, breaker))
    }

    /// The sharing settings' `connect_timeout`, in place of the app's build timeout.
    fn build_timeout(
        &self,
        _billing_api: Arc<BillingClient>,
        _settings: &BillingSettings,
        sharing: &SharingSettings,
    ) -> Duration {
        sharing.connect_timeout
    }
}

/// Colour only for a person at a terminal, and never with `NO_COLOR` set
/// (<https://no-color.org>): a file, a pipe or a log collector gets text without escape codes.
fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// What went wrong is printed as it reads (a `BuildError` is the whole report), never as
/// `Debug`, and the exit status says it failed.
#[allow(dead_code)] // the end-to-end tests include this file for `app` alone
#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_ansi(colour())
        .with_target(false)
        .init();
    // Metrics to Prometheus: installed first, because handles are registered when things are
    // made (the app's at `build()`, the breaker when billing is first needed). Prometheus's
    // names (`_total` counters, `_seconds` from the units `describe()` gives); buckets set, or
    // the exporter would render its histograms as summaries.
    let recorder = PrometheusBuilder::new()
        .with_recommended_naming(true)
        .set_buckets(&[0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0])?
        .build_recorder();
    let metrics_page = recorder.handle();
    // The exporter keeps every histogram sample until a scrape or an upkeep moves it into its
    // buckets: without this, a demo nobody scrapes grows by each request's sample, for good.
    // Between two upkeeps it holds one period's samples, and the process keeps the memory its
    // busiest period took: four times a second, not the exporter's own 5 s (its upkeep task
    // comes with its HTTP listener), because under the soak's load 5 s of samples cost up to
    // 8 MiB of resident memory and 1 s about 1 MiB (docs/reliability.md).
    let upkeep = recorder.handle();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_millis(250));
        loop {
            every.tick().await;
            upkeep.run_upkeep();
        }
    });
    metrics::set_global_recorder(recorder)?;
    green_tea::metric::describe();
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port
            .trim()
            .parse()
            .map_err(|_| format!("PORT={port:?} is not a port number"))?,
        Err(_) => 3000,
    };

    let sources = Sources::from_env()
        .file_from_env("ORDERS_SETTINGS")
        .strict();
    let app = served(sources, move || {
        metrics_page.run_upkeep();
        metrics_page.render()
    })
    .build()?;

    // Without BILLING_URL (the switch `fakeBilling`), the fake billing service starts now, so
    // that its address is in the banner; with it, the key is off in this shape (GT0106).
    match app.get::<FakeBilling>("fakeBilling").await {
        Ok(fake) => println!(
            "BILLING_URL is not set: started a fake billing service at {}",
            fake.url()
        ),
        Err(ProvideError::SwitchedOff { .. }) => {}
        Err(error) => return Err(error.into()),
    }
    // A shared breaker is made now rather than at the first order: a Redis URL it cannot use
    // stops the service here, and its banner says where the fleet's state is.
    let sharing = app.get::<SharingSettings>("sharingSettings").await?;
    if sharing.redis_url.is_some() {
        let billing = app.get::<GuardedBilling>("billing").await?;
        if let Some(at) = billing.breaker().shared_at() {
            println!("billing's circuit breaker is shared through {at}");
        }
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    println!("\n{}\n", app.explain("/orders")?);
    println!("Try it:");
    println!(
        "  curl -i -X POST http://{addr}/orders -H 'content-type: application/json' -d '{{\"userId\":\"u1\",\"amount\":5}}'"
    );
    println!("  curl -i http://{addr}/orders/health");
    println!("  curl -i http://{addr}/readyz     # readiness, with billing's breaker");
    println!("  open http://{addr}/_green-tea    # every route's chain, as a picture");
    println!("  curl http://{addr}/metrics       # Prometheus: requests, providers, the breaker");
    println!("Ctrl-C to stop.\n");

    match served.await {
        Ok(()) => println!("closed cleanly"),
        Err(error) => eprintln!("closed with problems: {error}"),
    }
    Ok(())
}
