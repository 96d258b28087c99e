//! Documented, public decorators in a module, sync and async, under strict lints.
#![forbid(unsafe_code)]
#![deny(missing_docs, warnings)]

use green_tea::prelude::*;

/// Billing.
pub mod billing {
    use green_tea::prelude::*;
    use std::sync::Arc;

    /// The billing client's name.
    #[provider(provides = "billing")]
    pub fn billing() -> String {
        "billing".to_owned()
    }

    /// Logs each call, fallibly.
    #[decorator(decorates = "billing", needs = ["prefix?", "auditors[]"])]
    pub async fn logged(
        billing: Arc<String>,
        prefix: Option<&String>,
        auditors: All<'_, String>,
    ) -> Result<String, BoxError> {
        let prefix = prefix.map_or("", String::as_str);
        Ok(format!("{prefix}{billing}{}", auditors.len()))
    }

    /// Retries, left to register by hand.
    #[decorator(decorates = "billing", discover = false)]
    pub(crate) fn retried(billing: &String) -> String {
        format!("retried({billing})")
    }
}

#[test]
fn compiles_and_runs() {
    let _ = Container::builder()
        .provider(billing::billing::provider())
        .decorator(billing::logged::decorator())
        .decorator(billing::retried::decorator());
    let _ = billing::retried(&billing::billing());
}
