//! The reference guide's shape: a provider fn `billing_api`, and in the same module a provider
//! whose parameter is named `billing_api` and a `let billing_api`. The generated companion
//! lives only in the type namespace, so each of these is a plain binding; and a module of the
//! same name as a provider fn takes precedence over its companion rather than colliding with it.
#![deny(warnings)]

use green_tea::prelude::*;
use std::sync::Arc;

pub struct BillingClient {
    url: String,
}

pub struct GuardedBilling {
    client: Arc<BillingClient>,
}

#[provider(provides = "billingApi")]
async fn billing_api() -> Result<BillingClient, BoxError> {
    Ok(BillingClient {
        url: "http://127.0.0.1:3001".to_owned(),
    })
}

#[provider(provides = "billing", needs = ["billingApi"])]
fn guarded_billing(billing_api: Arc<BillingClient>) -> GuardedBilling {
    GuardedBilling {
        client: billing_api,
    }
}

async fn direct() -> usize {
    let billing_api = billing_api().await.unwrap();
    let guarded_billing = guarded_billing(Arc::new(billing_api));
    guarded_billing.client.url.len()
}

/// A provider fn and a module of the same name: no collision.
#[provider(provides = "audit")]
fn audit() -> u32 {
    audit::LEVEL
}

mod audit {
    pub(crate) const LEVEL: u32 = 3;
}

#[test]
fn compiles_and_runs() {
    let billing_api = billing_api::provider();
    let builder = Container::builder()
        .provider(billing_api)
        .provider(guarded_billing::provider())
        .provider(self::__green_tea_audit::audit::provider());
    let _ = (builder, direct(), audit());
}
