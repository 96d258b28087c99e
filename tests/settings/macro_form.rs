//! Settings in the macro form, through an `App` as users build one: the settings type
//! read from a file and the environment, a size and a list, explain's values and sources, and
//! the warning for a mistyped variable. Every source is a map or an inline file.

use std::time::Duration;

use green_tea::prelude::*;
use green_tea::settings::{ByteSize, Secret, Sources};
use green_tea::{Warning, error::NodeKind};

/// How the app reaches billing.
#[derive(Settings, Debug)]
#[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
struct BillingSettings {
    url: String,
    #[settings(default = "2s")]
    timeout: Duration,
    token: Secret<String>,
    region: Option<String>,
    #[settings(default = "512KiB")]
    max_body: ByteSize,
    #[settings(default = "eu,us")]
    regions: Vec<String>,
    #[settings(nested)]
    breaker: BreakerSettings,
}

#[derive(Settings, Debug)]
struct BreakerSettings {
    #[settings(default = "3")]
    threshold: u32,
    #[settings(default = "30s")]
    reset: Duration,
}

const SECRET: &str = "macro-s3cr3t-77";

fn app(vars: &[(&'static str, &'static str)]) -> App {
    let mut env = vec![("BILLING_TOKEN", SECRET)];
    env.extend_from_slice(vars);
    App::builder()
        .settings(Sources::from_env_map(env).toml(
            "[billing]\nurl = \"http://billing.internal\"\nmax_body = \"2MiB\"\n\n\
             [billing.breaker]\nthreshold = 5\n",
            "config.toml",
        ))
        .provider(BillingSettings::provider())
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_derived_type_reads_defaults_the_file_and_the_environment() {
    let app = app(&[("BILLING_BREAKER_RESET", "1m")]);
    let billing = app.get::<BillingSettings>("billingSettings").await.unwrap();
    assert_eq!(billing.url, "http://billing.internal");
    assert_eq!(billing.timeout, Duration::from_secs(2));
    assert_eq!(billing.max_body, ByteSize::mib(2));
    assert_eq!(billing.regions, ["eu", "us"]);
    assert_eq!(billing.region, None);
    assert_eq!(billing.breaker.threshold, 5);
    assert_eq!(billing.breaker.reset, Duration::from_secs(60));
    assert_eq!(billing.token.expose(), SECRET);
    assert!(!format!("{billing:?}").contains(SECRET));
    app.close().await.unwrap();
}

#[test]
fn explain_shows_the_derived_fields_with_their_sources() {
    let app = app(&[]);
    let explain = app.container().explain_key("billingSettings").unwrap();
    assert_eq!(explain.nodes[0].kind, NodeKind::Settings);
    let text = explain.to_string();
    for line in [
        "url = http://billing.internal (config.toml:2)",
        "timeout = 2s (default)",
        "token = *** (env BILLING_TOKEN)",
        "max_body = 2MiB (config.toml:3)",
        "breaker.threshold = 5 (config.toml:6)",
        "breaker.reset = 30s (default)",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    for rendering in [text, explain.to_json().to_string(), explain.to_svg()] {
        assert!(!rendering.contains(SECRET));
    }
}

#[test]
fn a_mistyped_variable_is_a_warning_with_did_you_mean() {
    let app = app(&[("BILLING_TIMOUT", "5s")]);
    let [Warning::UnknownSetting(unknown)] = app
        .warnings()
        .iter()
        .filter(|w| matches!(w, Warning::UnknownSetting(_)))
        .collect::<Vec<_>>()[..]
    else {
        panic!("{:?}", app.warnings())
    };
    assert_eq!(unknown.name, "BILLING_TIMOUT");
    assert_eq!(unknown.suggestion.as_deref(), Some("BILLING_TIMEOUT"));
}

#[test]
fn a_bad_timeout_and_a_mistyped_url_with_strict_are_one_report() {
    let err = App::builder()
        .settings(
            Sources::from_env_map([
                ("BILLING_TOKEN", SECRET),
                ("BILLING_URLL", "http://billing.internal"),
                ("BILLING_TIMEOUT", "2"),
            ])
            .strict(),
        )
        .provider(BillingSettings::provider())
        .build()
        .unwrap_err();
    let codes: Vec<&str> = err.problems().iter().map(|p| p.code()).collect();
    assert_eq!(codes, ["GT0016", "GT0017", "GT0019"], "{err}");
    assert!(!err.to_string().contains(SECRET));
}
