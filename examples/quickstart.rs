//! The reference guide's two providers, without HTTP: `billingApi` holds the raw client and
//! closes it on dispose; `billing` wraps it, so code can reach billing only through the wrapper.
//!
//! Run with `cargo run --example quickstart`.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use green_tea::prelude::*;
use std::sync::Arc;

/// A stand-in for the billing service's client (`green_tea_recipes::billing` has a real one,
/// which the orders example uses).
struct BillingClient {
    url: String,
    open: AtomicBool,
    charges: AtomicU32,
}

impl BillingClient {
    async fn charge(&self, user_id: &str) -> Result<u32, BoxError> {
        if !self.open.load(Ordering::SeqCst) {
            return Err("the billing client is closed".into());
        }
        let n = self.charges.fetch_add(1, Ordering::SeqCst) + 1;
        println!(
            "  billing: charged {user_id} (charge #{n} via {})",
            self.url
        );
        Ok(n)
    }

    async fn close(&self) {
        self.open.store(false, Ordering::SeqCst);
        println!(
            "  dispose: billingApi closed its client after {} charge(s)",
            self.charges.load(Ordering::SeqCst)
        );
    }
}

/// The raw client's provider. Its state (the URL) lives on the provider, and `dispose` closes
/// the very client that `provide` handed out.
struct BillingApi {
    url: String,
}

#[provider(provides = "billingApi")]
impl BillingApi {
    fn new() -> Self {
        let url = std::env::var("BILLING_URL").unwrap_or_else(|_| "http://127.0.0.1:3001".into());
        BillingApi { url }
    }

    async fn provide(&self) -> BillingClient {
        BillingClient {
            url: self.url.clone(),
            open: AtomicBool::new(true),
            charges: AtomicU32::new(0),
        }
    }

    async fn dispose(&self, client: &BillingClient) {
        client.close().await;
        DISPOSED.lock().unwrap().push("billingApi");
    }
}

/// What handlers get: billing behind a wrapper (the recipes crate puts a circuit breaker here).
struct GuardedBilling {
    api: Arc<BillingClient>,
    calls: AtomicU32,
}

impl GuardedBilling {
    async fn charge(&self, user_id: &str) -> Result<u32, BoxError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.api.charge(user_id).await
    }
}

#[provider(provides = "billing", needs = ["billingApi"], dispose = report_guard)]
fn guarded_billing(billing_api: Arc<BillingClient>) -> GuardedBilling {
    GuardedBilling {
        api: billing_api,
        calls: AtomicU32::new(0),
    }
}

async fn report_guard(billing: &GuardedBilling) {
    DISPOSED.lock().unwrap().push("billing");
    println!(
        "  dispose: billing released after {} guarded call(s)",
        billing.calls.load(Ordering::SeqCst)
    );
}

static DISPOSED: Mutex<Vec<&str>> = Mutex::new(Vec::new());

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    // green-tea reports builds and disposes through `tracing`; show them.
    tracing_subscriber::fmt()
        .with_ansi(colour())
        .with_target(false)
        .without_time()
        .init();

    let app = Container::builder()
        .provider(BillingApi::new())
        .provider(guarded_billing::provider())
        .build()?;
    println!(
        "The graph is checked and nothing is built yet:\n{}\n",
        app.explain_key("billing")?
    );

    let billing = app.get::<GuardedBilling>("billing").await?;
    println!("Charging through `billing`:");
    billing.charge("u1").await?;
    billing.charge("u2").await?;

    println!("\nNow both are built:\n{}\n", app.explain_key("billing")?);

    println!("Closing (dependents first):");
    app.close().await?;
    println!("dispose order: {}", DISPOSED.lock().unwrap().join(" -> "));
    Ok(())
}

/// Colour only for a person at a terminal, and never with `NO_COLOR` set
/// (<https://no-color.org>): a file, a pipe or a log collector gets text without escape codes.
fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
