//! A documented, public provider in a module, under strict lints.
#![forbid(unsafe_code)]
#![deny(missing_docs, warnings)]

use green_tea::prelude::*;
use std::sync::Arc;

/// Billing.
pub mod billing {
    use green_tea::prelude::*;
    use std::sync::Arc;

    /// The billing service's address.
    #[provider(provides = "billingUrl")]
    pub fn billing_url() -> String {
        "http://127.0.0.1:3001".to_owned()
    }

    /// Its length, fallibly.
    #[provider(provides = ["urlLength", "urlHost"], needs = "billingUrl")]
    pub async fn url_parts(url: Arc<String>) -> Result<(usize, String), BoxError> {
        let host = url.split("//").nth(1).ok_or("no host")?.to_owned();
        Ok((url.len(), host))
    }
}

#[tokio::test(flavor = "current_thread")]
async fn compiles_and_runs() {
    let _ = Container::builder()
        .provider(billing::billing_url::provider())
        .provider(billing::url_parts::provider());
    // The fn is still a fn.
    let (length, host) = billing::url_parts(Arc::new(billing::billing_url()))
        .await
        .unwrap();
    assert_eq!((length, host.as_str()), (21, "127.0.0.1:3001"));
}
