//! A decorator through core alone, sync and async, with the vocabulary in its needs, under
//! strict lints.
#![deny(missing_docs, warnings)]

use green_tea_core::{All, BoxError, Container, decorator, provider};
use std::sync::Arc;

/// The billing client's name.
#[provider(provides = "billing")]
pub fn billing() -> String {
    "billing".to_owned()
}

/// Audits each call.
#[decorator(decorates = "billing", needs = ["auditors[]", "prefix?"])]
pub async fn audited(
    billing: Arc<String>,
    auditors: All<'_, String>,
    prefix: Option<Arc<String>>,
) -> Result<String, BoxError> {
    Ok(format!(
        "{}{billing}{}",
        prefix.as_deref().map_or("", String::as_str),
        auditors.len()
    ))
}

/// Retries, registered by hand.
#[decorator(decorates = "billing", discover = false)]
pub fn retried(billing: &String) -> String {
    format!("retried({billing})")
}

#[test]
fn compiles_and_builds() {
    let _ = Container::builder()
        .provider(billing::provider())
        .decorator(audited::decorator())
        .decorator(retried::decorator());
}
