//! `BillingSettings` read through a container from a map of variables (never the process's
//! environment): its four variables and their defaults, what it refuses at `build()`, and the
//! providers that need it.

use std::time::Duration;

use green_tea_core::settings::{Settings, Sources};
use green_tea_core::{BuildError, Container, FailureCause, Problem, ProvideError};
use green_tea_recipes::billing::fake::{FakeBilling, Mode};
use green_tea_recipes::billing::{
    Billing, BillingApi, BillingClient, BillingError, BillingSettings, BreakerSettings,
    GuardedBilling,
};
use green_tea_recipes::circuit_breaker::BreakerState;

fn build(vars: &[(&str, &str)]) -> Result<Container, BuildError> {
    Container::builder()
        .settings(Sources::from_env_map(vars.iter().copied()).strict())
        .provider(BillingSettings::provider())
        .provider(BillingApi::new())
        .provider(Billing::new())
        .build()
}

async fn settings(vars: &[(&str, &str)]) -> BillingSettings {
    let container = build(vars).unwrap();
    let settings = container
        .get::<BillingSettings>("billingSettings")
        .await
        .unwrap();
    container.close().await.unwrap();
    (*settings).clone()
}

#[tokio::test]
async fn nothing_set_is_the_guides_defaults_and_no_url() {
    assert_eq!(
        settings(&[]).await,
        BillingSettings {
            url: None,
            timeout: Duration::from_secs(2),
            breaker: BreakerSettings {
                threshold: 3,
                reset: Duration::from_secs(30),
            },
        }
    );
}

#[tokio::test]
async fn each_variable_sets_its_field() {
    let read = settings(&[
        ("BILLING_URL", "http://billing.internal:8080"),
        ("BILLING_TIMEOUT", "750ms"),
        ("BILLING_BREAKER_THRESHOLD", "5"),
        ("BILLING_BREAKER_RESET", "1m"),
    ])
    .await;
    assert_eq!(read.url.as_deref(), Some("http://billing.internal:8080"));
    assert_eq!(read.timeout, Duration::from_millis(750));
    assert_eq!(read.breaker.threshold, 5);
    assert_eq!(read.breaker.reset, Duration::from_secs(60));
}

#[test]
fn an_unusable_url_and_a_zero_threshold_are_refused_at_build() {
    let err = build(&[("BILLING_URL", "ftp://billing")]).unwrap_err();
    let [Problem::SettingRejected { reason, .. }] = err.problems() else {
        panic!("{err}");
    };
    assert!(reason.contains("only http:// is supported"), "{reason}");

    let err = build(&[("BILLING_BREAKER_THRESHOLD", "0")]).unwrap_err();
    let [Problem::SettingRejected { reason, .. }] = err.problems() else {
        panic!("{err}");
    };
    assert!(reason.contains("at least 1"), "{reason}");
}

/// The variables before settings: `BILLING_TIMEOUT_MS` is now unknown under `BILLING_`, and says
/// which one it meant.
#[test]
fn the_old_timeout_variable_is_unknown() {
    let err = build(&[("BILLING_TIMEOUT_MS", "500")]).unwrap_err();
    let [Problem::UnknownSetting { suggestion, .. }] = err.problems() else {
        panic!("{err}");
    };
    assert_eq!(suggestion.as_deref(), Some("BILLING_TIMEOUT"), "{err}");
}

/// `billingApi` calls `BILLING_URL`; `billing`'s breaker opens after
/// `BILLING_BREAKER_THRESHOLD` failures (here the first).
#[tokio::test]
async fn the_providers_are_made_from_the_settings() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let fake = FakeBilling::start(listener, Mode::Down).await.unwrap();
    let vars = [
        ("BILLING_URL", fake.url()),
        ("BILLING_BREAKER_THRESHOLD", "1"),
    ];
    let container = build(&vars).unwrap();
    let client = container.get::<BillingClient>("billingApi").await.unwrap();
    assert_eq!(client.base_url().to_string(), format!("{}/", fake.url()));
    let billing = container.get::<GuardedBilling>("billing").await.unwrap();
    assert_eq!(billing.charge("u1", 5).await.unwrap_err().status(), 503);
    assert_eq!(billing.breaker().state(), BreakerState::Open);
    assert_eq!(fake.hits(), 1);
    container.close().await.unwrap();
    fake.close().await;
}

/// Without `BILLING_URL` the app builds (an app may run without billing in some shapes), and
/// `billingApi` is the typed error that says which variable to set.
#[tokio::test]
async fn without_a_url_billing_api_is_a_typed_error() {
    let container = build(&[]).unwrap();
    let err = container
        .get::<BillingClient>("billingApi")
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(
            "no billing URL is set: set BILLING_URL (or `url` in the settings file's `[billing]`)"
        ),
        "{text}"
    );
    let ProvideError::Failed {
        cause: FailureCause::Error(cause),
        ..
    } = &err
    else {
        panic!("{err}");
    };
    assert!(
        matches!(
            cause.downcast_ref::<BillingError>(),
            Some(BillingError::NoUrl)
        ),
        "{cause:?}"
    );
    container.close().await.unwrap();
}
