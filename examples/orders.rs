//! The reference guide's orders service: `POST /orders` charges through `billing`, a client
//! behind a circuit breaker; `GET /orders/health` builds nothing.
//!
//! ```sh
//! cargo run --example orders
//! ```
//!
//! Reads `PORT` (3000; 0 picks a free port, printed as `listening on http://...`),
//! `BILLING_URL` (if unset, a fake billing service starts in-process on a free port),
//! `BREAKER_THRESHOLD` (3), `BREAKER_RESET_MS` (30000), `BILLING_TIMEOUT_MS` (2000).
//! With `REDIS_URL` set (`redis://127.0.0.1:6379/` or `redis+unix:///path`), billing's breaker
//! shares its state with every instance using the same Redis and `BREAKER_NAME` (`billing`);
//! `BREAKER_REFRESH_MS` (250) is how often it reads the fleet's state. Without it nothing
//! changes.
//! Ctrl-C or SIGTERM closes it gracefully: requests drain, then providers are disposed, each
//! logged, dependents first.

use green_tea::prelude::*;
use green_tea_recipes::billing::fake::{FakeBilling, Mode};
use green_tea_recipes::billing::{Billing, BillingApi, BillingSettings, GuardedBilling};
use green_tea_recipes::circuit_breaker::CircuitBreaker;
use green_tea_recipes::circuit_breaker::shared::SharedConfig;
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

/// The orders app over billing at `settings.url`, guarded by `breaker` (what the end-to-end
/// tests build, including this file).
#[allow(dead_code)]
pub(crate) fn app(
    settings: &BillingSettings,
    breaker: CircuitBreaker,
) -> Result<App, green_tea::BuildError> {
    builder(settings, breaker).build()
}

/// The same, not built yet (`main` adds `/metrics`).
fn builder(settings: &BillingSettings, breaker: CircuitBreaker) -> AppBuilder {
    let shared_at = breaker.shared_at();
    let billing = Billing::with_breaker(breaker);
    let builder = App::builder().provider(BillingApi::with_settings(settings.clone()));
    // A shared breaker says so, and where, on `billing`'s line of `explain`.
    let builder = match shared_at {
        Some(at) => builder.provider(Described {
            inner: billing,
            name: format!("Billing (circuit breaker shared through {at})"),
        }),
        None => builder.provider(billing),
    };
    builder
        .step(request_id::step())
        .routes(Orders::routes())
        // For an operator: liveness and readiness (not ready while billing's client cannot be
        // built, or while draining), billing's breaker in the health, and the graph as a page.
        .health_routes("/healthz", "/readyz")
        .critical("billing")
        .health_check::<GuardedBilling>("billing")
        .explain_page("/_green-tea")
}

/// A provider under another name: `explain` prints it on the provider's line.
struct Described<P> {
    inner: P,
    name: String,
}

impl<P: green_tea::Provider> green_tea::Provider for Described<P> {
    fn descriptor(&self) -> green_tea::Descriptor {
        self.inner.descriptor().named(self.name.clone())
    }

    fn provide(
        &self,
        needs: green_tea::Needs<'_>,
    ) -> impl Future<Output = Result<green_tea::Provided, green_tea::BoxError>> + Send {
        self.inner.provide(needs)
    }

    fn dispose(
        &self,
        provided: &green_tea::Provided,
    ) -> impl Future<Output = Result<(), green_tea::BoxError>> + Send {
        self.inner.dispose(provided)
    }
}

/// Billing's breaker: shared through Redis when `REDIS_URL` is set, local otherwise.
async fn billing_breaker(
    settings: &BillingSettings,
) -> Result<CircuitBreaker, Box<dyn std::error::Error>> {
    let Ok(url) = std::env::var("REDIS_URL") else {
        return Ok(settings.breaker());
    };
    let name = std::env::var("BREAKER_NAME").unwrap_or_else(|_| "billing".to_owned());
    let mut shared = SharedConfig::new(url);
    if let Ok(ms) = std::env::var("BREAKER_REFRESH_MS") {
        let ms: u64 = ms
            .trim()
            .parse()
            .map_err(|_| format!("BREAKER_REFRESH_MS={ms:?} is not a number"))?;
        shared = shared.refresh_interval(std::time::Duration::from_millis(ms));
    }
    let config =
        green_tea_recipes::circuit_breaker::Config::new(settings.threshold, settings.reset)
            .call_timeout(settings.timeout)
            .name(&name);
    Ok(CircuitBreaker::shared(config, shared).await?)
}

#[allow(dead_code)] // the end-to-end tests include this file for `app` alone
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt().with_target(false).init();
    // Metrics to Prometheus: installed first, because handles are registered when things are
    // made (the breaker now, the app's at `build()`). Prometheus's names (`_total` counters,
    // `_seconds` from the units `describe()` gives); buckets set, or the exporter would render
    // its histograms as summaries.
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
    let mut settings = BillingSettings::from_env()?;
    let port: u16 = std::env::var("PORT")
        .ok()
        .map(|p| p.parse())
        .transpose()?
        .unwrap_or(3000);

    let fake = if std::env::var_os("BILLING_URL").is_none() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let fake = FakeBilling::start(listener, Mode::Up).await?;
        println!(
            "BILLING_URL is not set: started a fake billing service at {}",
            fake.url()
        );
        settings.url = fake.url().to_owned();
        Some(fake)
    } else {
        None
    };

    let breaker = billing_breaker(&settings).await?;
    if let Some(at) = breaker.shared_at() {
        println!("billing's circuit breaker is shared through {at}");
    }
    let app = builder(&settings, breaker)
        // What Prometheus scrapes: everything recorded so far, as its text format.
        .route(Route::get("/metrics", move |_: RequestContext| {
            metrics_page.run_upkeep();
            let text = metrics_page.render();
            async move { text }
        }))
        .build()?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
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

    match app.serve_listener(listener).await {
        Ok(()) => println!("closed cleanly"),
        Err(error) => eprintln!("closed with problems: {error}"),
    }
    if let Some(fake) = fake {
        fake.close().await;
    }
    Ok(())
}
