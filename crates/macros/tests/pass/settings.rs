//! `#[derive(Settings)]` expanded and read: the design's types from an environment map and
//! from an inline TOML file, defaults, optional and nested fields, secrets, `rename`,
//! `validate`, every problem of a type in one `BuildError`, and discovery. No test touches
//! the process environment.

use std::time::Duration;

use green_tea::prelude::*;
use green_tea::settings::{Secret, Sources};
use green_tea_core::Problem;

#[derive(Settings, Debug)]
#[settings(provides = "billingSettings", prefix = "BILLING", validate = Self::check)]
struct BillingSettings {
    url: String,
    #[settings(default = "2s")]
    timeout: Duration,
    token: Secret<String>,
    region: Option<String>,
    #[settings(nested)]
    breaker: BreakerSettings,
}

impl BillingSettings {
    fn check(&self) -> Result<(), String> {
        if self.url.starts_with("http") {
            Ok(())
        } else {
            Err(format!("url `{}` is not http(s)", self.url))
        }
    }
}

#[derive(Settings, Debug)]
struct BreakerSettings {
    #[settings(default = "3")]
    threshold: u32,
    #[settings(default = "30s")]
    reset: Duration,
}

/// `secret` on plain types, `Option<Secret<T>>`, `rename`, a nested type with a required
/// field and a `validate` of its own.
#[derive(Settings, Debug)]
#[settings(provides = "mail", prefix = "MAIL", discover = false)]
struct MailSettings {
    #[settings(rename = "host")]
    server: String,
    #[settings(secret)]
    port: u16,
    backup_token: Option<Secret<String>>,
    #[settings(nested)]
    retry: Retry,
}

#[derive(Settings, Debug)]
#[settings(validate = positive)]
struct Retry {
    attempts: u8,
}

fn positive(retry: &Retry) -> Result<(), String> {
    match retry.attempts {
        0 => Err("attempts must be at least 1".to_owned()),
        _ => Ok(()),
    }
}

fn env(vars: &[(&str, &str)]) -> Sources {
    Sources::from_env_map(vars.iter().copied())
}

async fn read<T: Settings>(sources: Sources) -> std::sync::Arc<T> {
    let container = Container::builder()
        .settings(sources)
        .provider(T::provider())
        .build()
        .unwrap_or_else(|err| panic!("{err}"));
    let value = container.get::<T>(T::KEY).await.unwrap();
    container.close().await.unwrap();
    value
}

fn problems_of<T: Settings>(sources: Sources) -> Vec<Problem> {
    match Container::builder()
        .settings(sources)
        .provider(T::provider())
        .build()
    {
        Ok(_) => panic!("expected a build error"),
        Err(err) => err.into_problems(),
    }
}

const BILLING_ENV: [(&str, &str); 2] = [
    ("BILLING_URL", "http://127.0.0.1:3001"),
    ("BILLING_TOKEN", "s3cr3t-t0ken"),
];

#[tokio::test]
async fn reads_the_environment_with_defaults_and_without_the_optional() {
    let billing: std::sync::Arc<BillingSettings> = read(env(&BILLING_ENV)).await;
    assert_eq!(billing.url, "http://127.0.0.1:3001");
    assert_eq!(billing.timeout, Duration::from_secs(2));
    assert_eq!(billing.token.expose(), "s3cr3t-t0ken");
    assert_eq!(billing.region, None);
    assert_eq!(billing.breaker.threshold, 3);
    assert_eq!(billing.breaker.reset, Duration::from_secs(30));
}

#[tokio::test]
async fn nested_fields_read_under_the_field_name() {
    let mut vars = BILLING_ENV.to_vec();
    vars.extend([
        ("BILLING_BREAKER_THRESHOLD", "5"),
        ("BILLING_BREAKER_RESET", "1m"),
        ("BILLING_REGION", "eu"),
        ("BILLING_TIMEOUT", "500ms"),
    ]);
    let billing: std::sync::Arc<BillingSettings> = read(env(&vars)).await;
    assert_eq!(billing.breaker.threshold, 5);
    assert_eq!(billing.breaker.reset, Duration::from_secs(60));
    assert_eq!(billing.region.as_deref(), Some("eu"));
    assert_eq!(billing.timeout, Duration::from_millis(500));
}

const BILLING_TOML: &str = r#"
[billing]
url = "https://billing.example"
token = "file-t0ken"
timeout = "750ms"

[billing.breaker]
threshold = 7
"#;

#[tokio::test]
async fn reads_an_inline_file_under_the_environment() {
    let from_file: std::sync::Arc<BillingSettings> =
        read(env(&[]).toml(BILLING_TOML, "billing.toml")).await;
    assert_eq!(from_file.url, "https://billing.example");
    assert_eq!(from_file.token.expose(), "file-t0ken");
    assert_eq!(from_file.timeout, Duration::from_millis(750));
    assert_eq!(from_file.breaker.threshold, 7);
    assert_eq!(from_file.breaker.reset, Duration::from_secs(30));

    let sources = env(&[("BILLING_BREAKER_THRESHOLD", "9")]).toml(BILLING_TOML, "billing.toml");
    let overridden: std::sync::Arc<BillingSettings> = read(sources).await;
    assert_eq!(overridden.breaker.threshold, 9);
    assert_eq!(overridden.url, "https://billing.example");
}

#[test]
fn every_field_is_read_so_every_problem_is_reported() {
    let problems = problems_of::<BillingSettings>(env(&[
        ("BILLING_TIMEOUT", "2"),
        ("BILLING_BREAKER_THRESHOLD", "many"),
    ]));
    let mut found: Vec<String> = problems
        .iter()
        .map(|problem| match problem {
            Problem::SettingMissing {
                field, variable, ..
            } => format!("missing {field} {variable}"),
            Problem::SettingInvalid { field, source, .. } => format!("invalid {field} {source}"),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "invalid breaker.threshold env BILLING_BREAKER_THRESHOLD",
            "invalid timeout env BILLING_TIMEOUT",
            "missing token BILLING_TOKEN",
            "missing url BILLING_URL",
        ]
    );
}

#[test]
fn a_missing_nested_field_names_its_variable_and_file_key() {
    let problems = problems_of::<MailSettings>(env(&[("MAIL_HOST", "smtp"), ("MAIL_PORT", "25")]));
    let [
        Problem::SettingMissing {
            settings,
            field,
            variable,
            file_key,
            ..
        },
    ] = &problems[..]
    else {
        panic!("{problems:?}");
    };
    assert_eq!(settings.as_str(), "mail");
    assert_eq!(
        (field.as_str(), variable.as_str(), file_key.as_str()),
        (
            "retry.attempts",
            "MAIL_RETRY_ATTEMPTS",
            "[mail.retry] attempts"
        )
    );
}

#[tokio::test]
async fn rename_secret_and_optional_secret() {
    let mail: std::sync::Arc<MailSettings> = read(env(&[
        ("MAIL_HOST", "smtp.example"),
        ("MAIL_PORT", "2525"),
        ("MAIL_BACKUP_TOKEN", "b4ckup"),
        ("MAIL_RETRY_ATTEMPTS", "2"),
    ]))
    .await;
    assert_eq!(mail.server, "smtp.example");
    assert_eq!(mail.port, 2525);
    assert_eq!(
        mail.backup_token
            .as_ref()
            .map(Secret::expose)
            .map(String::as_str),
        Some("b4ckup")
    );
    assert_eq!(mail.retry.attempts, 2);
    assert!(!format!("{mail:?}").contains("b4ckup"));
    // The field is read as `host`: `MAIL_SERVER` is no variable of it.
    let problems = problems_of::<MailSettings>(env(&[
        ("MAIL_SERVER", "smtp.example"),
        ("MAIL_PORT", "2525"),
        ("MAIL_RETRY_ATTEMPTS", "2"),
    ]));
    assert!(
        problems.iter().any(|p| matches!(p,
            Problem::SettingMissing { variable, .. } if variable == "MAIL_HOST")),
        "{problems:?}"
    );
}

#[test]
fn secrets_are_masked_in_debug_and_in_problems() {
    let billing = BillingSettings {
        url: "http://x".to_owned(),
        timeout: Duration::from_secs(1),
        token: Secret::new("s3cr3t-t0ken".to_owned()),
        region: None,
        breaker: BreakerSettings {
            threshold: 1,
            reset: Duration::from_secs(1),
        },
    };
    let debug = format!("{billing:?}");
    assert!(debug.contains("token: ***"), "{debug}");
    assert!(!debug.contains("s3cr3t"), "{debug}");

    // `#[settings(secret)]` on a plain `u16`: a value that does not read is not shown.
    let err = Container::builder()
        .settings(env(&[
            ("MAIL_HOST", "smtp"),
            ("MAIL_PORT", "hunter2"),
            ("MAIL_BACKUP_TOKEN", " "),
            ("MAIL_RETRY_ATTEMPTS", "1"),
        ]))
        .provider(MailSettings::provider())
        .build()
        .expect_err("the port does not read");
    let rendered = format!("{err}\n{err:?}");
    assert!(!rendered.contains("hunter2"), "{rendered}");
    let mut found: Vec<&str> = err
        .problems()
        .iter()
        .filter_map(|p| match p {
            Problem::SettingInvalid { field, found, .. } => Some((field.as_str(), found.as_str())),
            _ => None,
        })
        .map(|(field, found)| {
            assert_eq!(found, "***", "{field}");
            field
        })
        .collect();
    found.sort_unstable();
    assert_eq!(found, ["backup_token", "port"]);
}

#[test]
fn validate_runs_once_the_fields_are_read() {
    let problems = problems_of::<BillingSettings>(env(&[
        ("BILLING_URL", "ftp://billing"),
        ("BILLING_TOKEN", "t"),
    ]));
    let [Problem::SettingRejected { settings, reason }] = &problems[..] else {
        panic!("{problems:?}");
    };
    assert_eq!(settings.as_str(), "billingSettings");
    assert_eq!(reason, "url `ftp://billing` is not http(s)");

    // A nested type's own `validate`, named after its field.
    let problems = problems_of::<MailSettings>(env(&[
        ("MAIL_HOST", "smtp"),
        ("MAIL_PORT", "25"),
        ("MAIL_RETRY_ATTEMPTS", "0"),
    ]));
    let [Problem::SettingRejected { reason, .. }] = &problems[..] else {
        panic!("{problems:?}");
    };
    assert_eq!(reason, "`retry`: attempts must be at least 1");
}

#[test]
fn an_unregistered_settings_type_is_named_where_its_key_is_missing() {
    #[provider(provides = "billingClient", needs = "billingSettings")]
    fn billing_client(settings: &BillingSettings) -> String {
        settings.url.clone()
    }
    let err = Container::builder()
        .provider(billing_client::provider())
        .build()
        .expect_err("nothing provides billingSettings");
    let text = err.to_string();
    assert!(
        text.contains(".provider(BillingSettings::provider())"),
        "{text}"
    );
}

#[test]
fn the_provider_is_located_at_the_struct() {
    let container = Container::builder()
        .settings(env(&BILLING_ENV))
        .provider(BillingSettings::provider())
        .build()
        .unwrap();
    let explain = container
        .explain_key("billingSettings")
        .unwrap()
        .to_string();
    assert!(explain.contains("pass/settings.rs:"), "{explain}");
    let line = format!("pass/settings.rs:{}", line_of("struct BillingSettings {"));
    assert!(explain.contains(&line), "{explain}");
    assert!(!explain.contains("s3cr3t"), "{explain}");
}

/// The line of the first line of this file that contains `text`.
fn line_of(text: &str) -> usize {
    include_str!("settings.rs")
        .lines()
        .position(|line| line.contains(text))
        .expect("in this file")
        // `#[derive]` reports the struct's name, on the line after its attributes.
        + 1
}

mod discovered {
    use green_tea::prelude::*;

    #[derive(Settings, Debug)]
    #[settings(provides = "cacheSettings", prefix = "CACHE")]
    pub(super) struct CacheSettings {
        #[settings(default = "64")]
        pub(super) size: u32,
    }

    #[derive(Settings, Debug)]
    #[settings(provides = "queueSettings", prefix = "QUEUE", discover = false)]
    #[allow(dead_code)]
    pub(super) struct QueueSettings {
        #[settings(default = "8")]
        depth: u32,
    }
}

#[tokio::test]
async fn discovery_finds_the_derived_provider_but_not_one_that_opts_out() {
    let container = Container::builder()
        .settings(env(&[("CACHE_SIZE", "128")]))
        .discover_in(&[concat!(module_path!(), "::discovered")])
        .build()
        .unwrap();
    let cache = container
        .get::<discovered::CacheSettings>("cacheSettings")
        .await
        .unwrap();
    assert_eq!(cache.size, 128);
    assert!(
        container
            .get::<discovered::QueueSettings>("queueSettings")
            .await
            .is_err()
    );
    container.close().await.unwrap();
}
