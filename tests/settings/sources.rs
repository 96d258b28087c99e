//! Settings by hand (the `Settings` trait implemented as the derive writes it), through `App`
//! and `Container`: layering, every problem at once in the graph's report, unknown variables,
//! secrets never shown, explain's values and sources, overrides. Every source is a map or an
//! inline file, so no test touches the process's environment (but the one that shows
//! `Sources::from_env()` reading it, which only reads).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use green_tea::error::Problem;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::settings::{FieldSpec, Reader, Secret, SettingSource, Settings, Sources};
use green_tea::{App, Container, ProviderFn, Warning};

/// How the app reaches billing.
#[derive(Debug, Clone)]
struct BillingSettings {
    url: String,
    timeout: Duration,
    token: Secret<String>,
    region: Option<String>,
    breaker: BreakerSettings,
}

#[derive(Debug, Clone)]
struct BreakerSettings {
    threshold: u32,
    reset: Duration,
}

impl Settings for BillingSettings {
    const KEY: &'static str = "billingSettings";
    const PREFIX: &'static str = "BILLING";

    fn fields() -> Vec<FieldSpec> {
        vec![
            FieldSpec::new("url", "String"),
            FieldSpec::new("timeout", "Duration").default("2s"),
            FieldSpec::new("token", "Secret<String>").secret(),
            FieldSpec::new("region", "Option<String>").optional(),
            FieldSpec::new("breaker", "BreakerSettings").nested(BreakerSettings::fields),
        ]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let url = reader.value("url", None);
        let timeout = reader.value("timeout", Some("2s"));
        let token = reader.secret("token", None);
        let region = reader.optional("region");
        let breaker = reader.nested("breaker");
        Some(BillingSettings {
            url: url?,
            timeout: timeout?,
            token: token?,
            region: region?,
            breaker: breaker?,
        })
    }
}

impl Settings for BreakerSettings {
    const KEY: &'static str = "";
    const PREFIX: &'static str = "";

    fn fields() -> Vec<FieldSpec> {
        vec![
            FieldSpec::new("threshold", "u32").default("3"),
            FieldSpec::new("reset", "Duration").default("30s"),
        ]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let threshold = reader.value("threshold", Some("3"));
        let reset = reader.value("reset", Some("30s"));
        Some(BreakerSettings {
            threshold: threshold?,
            reset: reset?,
        })
    }
}

/// A second settings type, for problems in two types at once.
#[derive(Debug)]
struct ShopSettings {
    port: u16,
    _name: String,
}

impl Settings for ShopSettings {
    const KEY: &'static str = "shopSettings";
    const PREFIX: &'static str = "SHOP";

    fn fields() -> Vec<FieldSpec> {
        vec![
            FieldSpec::new("port", "u16").default("8080"),
            FieldSpec::new("name", "String").default("green-tea shop"),
        ]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let port = reader.value("port", Some("8080"));
        let name = reader.value("name", Some("green-tea shop"));
        Some(ShopSettings {
            port: port?,
            _name: name?,
        })
    }

    fn validate(&self) -> Result<(), String> {
        match self.port {
            0 => Err("`port` 0 is not a port to serve on".to_owned()),
            _ => Ok(()),
        }
    }
}

/// The same shape as billing under a longer prefix: a module instance's.
#[derive(Debug)]
struct BillingEuSettings {
    _url: String,
}

impl Settings for BillingEuSettings {
    const KEY: &'static str = "billingEuSettings";
    const PREFIX: &'static str = "BILLING_EU";

    fn fields() -> Vec<FieldSpec> {
        vec![FieldSpec::new("url", "String")]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let url = reader.value("url", None);
        Some(BillingEuSettings { _url: url? })
    }
}

const SECRET: &str = "s3cr3t-token-4b1d";

fn billing_env(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut vars = vec![
        ("BILLING_URL", "http://127.0.0.1:3001"),
        ("BILLING_TOKEN", SECRET),
    ];
    vars.extend_from_slice(extra);
    vars
}

#[tokio::test]
async fn defaults_then_the_file_then_the_environment() {
    let file = "[billing]\nurl = \"http://from-the-file\"\ntimeout = \"5s\"\nregion = \"eu\"\n\n\
                [billing.breaker]\nthreshold = 7\n";
    let app = App::builder()
        .settings(
            Sources::from_env_map(billing_env(&[("BILLING_TIMEOUT", "750ms")]))
                .toml(file, "app.toml"),
        )
        .provider(BillingSettings::provider())
        .build()
        .unwrap();
    let billing = app.get::<BillingSettings>("billingSettings").await.unwrap();
    assert_eq!(
        billing.url, "http://127.0.0.1:3001",
        "the environment over the file"
    );
    assert_eq!(
        billing.timeout,
        Duration::from_millis(750),
        "the environment over the file"
    );
    assert_eq!(
        billing.region.as_deref(),
        Some("eu"),
        "the file over nothing"
    );
    assert_eq!(billing.breaker.threshold, 7, "the file over the default");
    assert_eq!(
        billing.breaker.reset,
        Duration::from_secs(30),
        "the default"
    );
    assert_eq!(billing.token.expose(), SECRET);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_container_reads_settings_too() {
    let container = Container::builder()
        .settings(Sources::from_env_map(billing_env(&[])))
        .provider(BillingSettings::provider())
        .build()
        .unwrap();
    let billing = container
        .get::<BillingSettings>("billingSettings")
        .await
        .unwrap();
    assert_eq!(billing.timeout, Duration::from_secs(2));
    container.close().await.unwrap();
}

#[test]
fn three_mistakes_in_two_settings_types_are_one_report_and_nothing_is_built() {
    let built = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&built);
    let err = App::builder()
        .settings(Sources::from_env_map([
            // billing: no BILLING_URL (GT0016), a timeout without a unit (GT0017)
            ("BILLING_TOKEN", SECRET),
            ("BILLING_TIMEOUT", "30"),
            // shop: a port out of range (GT0017)
            ("SHOP_PORT", "99999"),
        ]))
        .provider(BillingSettings::provider())
        .provider(ShopSettings::provider())
        .provider(
            ProviderFn::new("billing", move |_| {
                let counter = Arc::clone(&counter);
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    Ok(1_u32)
                }
            })
            .needs::<BillingSettings>("billingSettings"),
        )
        .build()
        .unwrap_err();
    let problems: Vec<(&str, String)> = err
        .problems()
        .iter()
        .map(|p| match p {
            Problem::SettingMissing {
                settings, field, ..
            }
            | Problem::SettingInvalid {
                settings, field, ..
            } => (p.code(), format!("{settings}.{field}")),
            other => panic!("{other}"),
        })
        .collect();
    assert_eq!(
        problems,
        [
            ("GT0016", "billingSettings.url".to_owned()),
            ("GT0017", "billingSettings.timeout".to_owned()),
            ("GT0017", "shopSettings.port".to_owned()),
        ]
    );
    let text = err.to_string();
    assert!(
        text.contains("set the variable BILLING_URL, or [billing] url"),
        "{text}"
    );
    assert!(text.contains("from env BILLING_TIMEOUT: `30`"), "{text}");
    assert!(
        text.contains("out of range for `u16` (0 to 65535)"),
        "{text}"
    );
    assert!(
        text.ends_with("the graph has 3 problems; nothing was built"),
        "{text}"
    );
    assert_eq!(built.load(Ordering::SeqCst), 0);
}

#[test]
fn settings_problems_share_the_report_with_the_graphs() {
    let err = Container::builder()
        .settings(Sources::from_env_map([("BILLING_TOKEN", SECRET)]))
        .provider(BillingSettings::provider())
        .provider(
            ProviderFn::new("billing", |_| async { Ok(1_u32) })
                .needs::<BillingSettings>("billingSettings")
                .needs::<String>("billingApi"),
        )
        .build()
        .unwrap_err();
    let codes: Vec<&str> = err.problems().iter().map(Problem::code).collect();
    assert_eq!(codes, ["GT0001", "GT0016"]);
}

#[test]
fn validation_is_a_problem_of_its_own() {
    let err = App::builder()
        .settings(Sources::from_env_map([("SHOP_PORT", "0")]))
        .provider(ShopSettings::provider())
        .build()
        .unwrap_err();
    assert!(matches!(
        &err.problems()[0],
        Problem::SettingRejected { settings, reason }
            if settings.as_str() == "shopSettings" && reason.contains("`port` 0")
    ));
    assert!(err.to_string().starts_with("error[GT0018]"));
}

#[test]
fn an_unknown_variable_is_a_warning_with_did_you_mean() {
    let app = App::builder()
        .settings(Sources::from_env_map(billing_env(&[
            ("BILLING_URLL", "http://typo"),
            // What Kubernetes sets for a Service named billing: unknown, but only a warning.
            ("BILLING_SERVICE_HOST", "10.0.0.7"),
        ])))
        .provider(BillingSettings::provider())
        .build()
        .unwrap();
    let unknown: Vec<(String, Option<String>)> = app
        .warnings()
        .iter()
        .filter_map(|w| match w {
            Warning::UnknownSetting(u) => Some((u.name.clone(), u.suggestion.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        unknown,
        [
            ("BILLING_SERVICE_HOST".to_owned(), None),
            ("BILLING_URLL".to_owned(), Some("BILLING_URL".to_owned())),
        ]
    );
    let text = app
        .warnings()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("warning[GT0019]: the variable `BILLING_URLL` is under the settings prefix `BILLING_`, but no field reads it\n  help: did you mean `BILLING_URL`?"), "{text}");
}

#[test]
fn strict_makes_an_unknown_variable_an_error() {
    let err = App::builder()
        .settings(Sources::from_env_map(billing_env(&[("BILLING_URLL", "x")])).strict())
        .provider(BillingSettings::provider())
        .build()
        .unwrap_err();
    let [
        Problem::UnknownSetting {
            name,
            suggestion,
            source,
            prefix,
        },
    ] = err.problems()
    else {
        panic!("{err}")
    };
    assert_eq!(name, "BILLING_URLL");
    assert_eq!(suggestion.as_deref(), Some("BILLING_URL"));
    assert_eq!(*source, SettingSource::Env("BILLING_URLL".to_owned()));
    assert_eq!(prefix, "BILLING_");
    assert!(err.to_string().starts_with("error[GT0019]"));
}

#[test]
fn an_unknown_key_in_the_files_table_is_found_too() {
    let err = App::builder()
        .settings(
            Sources::from_env_map(billing_env(&[]))
                .toml("[billing]\ntimout = \"3s\"\n", "app.toml")
                .strict(),
        )
        .provider(BillingSettings::provider())
        .build()
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(
            "the key `billing.timout` (app.toml:2:1) is in the settings table `[billing]`"
        ),
        "{text}"
    );
    assert!(text.contains("did you mean `billing.timeout`?"), "{text}");
}

#[test]
fn a_longer_prefix_claims_its_variables() {
    let app = App::builder()
        .settings(Sources::from_env_map(billing_env(&[
            ("BILLING_EU_URL", "http://eu"),
            ("BILLING_EU_URLL", "http://eu-typo"),
        ])))
        .provider(BillingSettings::provider())
        .provider(BillingEuSettings::provider())
        .build()
        .unwrap();
    let unknown: Vec<(&str, &str, Option<&str>)> = app
        .warnings()
        .iter()
        .filter_map(|w| match w {
            Warning::UnknownSetting(u) => {
                Some((u.name.as_str(), u.prefix.as_str(), u.suggestion.as_deref()))
            }
            _ => None,
        })
        .collect();
    // Only `BILLING_EU_`'s, and neither variable is unknown under `BILLING_`.
    assert_eq!(
        unknown,
        [("BILLING_EU_URLL", "BILLING_EU_", Some("BILLING_EU_URL"))]
    );
}

#[tokio::test]
async fn secrets_are_never_shown() {
    let sources = Sources::from_env_map(billing_env(&[]));
    let sources_debug = format!("{sources:?}");
    let builder = App::builder()
        .settings(sources)
        .provider(BillingSettings::provider())
        .route(
            Route::get("/billing", |request: RequestContext| async move {
                let billing = request.need::<BillingSettings>(0)?;
                Ok::<_, green_tea::HttpError>(billing.url.clone())
            })
            .needs::<BillingSettings>("billingSettings"),
        );
    let builder_debug = format!("{builder:?}");
    let app = builder.build().unwrap();
    app.start().await.unwrap();
    let billing = app.get::<BillingSettings>("billingSettings").await.unwrap();
    assert_eq!(
        billing.token.expose(),
        SECRET,
        "the secret is there to read"
    );
    let key = app.container().explain_key("billingSettings").unwrap();
    let path = app.explain("/billing").unwrap();
    let all = app.explain_all();
    let renderings = [
        sources_debug,
        builder_debug,
        format!("{billing:?}"),
        format!("{:?} {}", billing.token, billing.token),
        key.to_string(),
        key.to_json().to_string(),
        key.to_dot(),
        key.to_mermaid(),
        key.to_svg(),
        path.to_string(),
        path.to_json().to_string(),
        path.to_dot(),
        path.to_mermaid(),
        path.to_svg(),
        all.to_string(),
        all.to_json().to_string(),
        all.to_svg(),
        all.to_html(),
        format!("{:?}", app.health().await),
    ];
    for (i, text) in renderings.iter().enumerate() {
        assert!(
            !text.contains(SECRET),
            "rendering {i} shows the secret: {text}"
        );
    }
    assert!(key.to_string().contains("token = *** (env BILLING_TOKEN)"));
    app.close().await.unwrap();

    // A report with the secret in it: the secret's own problem, and another field's.
    let err = App::builder()
        .provider(BillingSettings::provider())
        .provider(PinSettings::provider())
        .settings(Sources::from_env_map([
            ("BILLING_TOKEN", SECRET),
            ("BILLING_URL", " "),
            ("PIN_CODE", SECRET),
        ]))
        .build()
        .unwrap_err();
    for text in [
        err.to_string(),
        format!("{err:?}"),
        format!("{:?}", err.problems()),
    ] {
        assert!(!text.contains(SECRET), "{text}");
    }
    assert!(
        err.to_string().contains("from env PIN_CODE: `***`"),
        "{err}"
    );
}

/// A secret that is not text: a value that does not parse says nothing of what it is.
struct PinSettings {
    _code: Secret<u32>,
}

impl Settings for PinSettings {
    const KEY: &'static str = "pinSettings";
    const PREFIX: &'static str = "PIN";

    fn fields() -> Vec<FieldSpec> {
        vec![FieldSpec::new("code", "Secret<u32>").secret()]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let code = reader.secret("code", None);
        Some(PinSettings { _code: code? })
    }
}

#[test]
fn explain_shows_each_fields_value_and_source() {
    let app = App::builder()
        .settings(
            Sources::from_env_map(billing_env(&[]))
                .toml("[billing]\n\ntimeout = \"5s\"\n", "config.toml"),
        )
        .provider(BillingSettings::provider())
        .build()
        .unwrap();
    let explain = app.container().explain_key("billingSettings").unwrap();
    let node = &explain.nodes[0];
    assert_eq!(node.kind, green_tea::error::NodeKind::Settings);
    let rows: Vec<(&str, &str, &str)> = node
        .settings
        .as_ref()
        .expect("a settings node lists its fields")
        .iter()
        .map(|s| (s.field.as_str(), s.value.as_str(), s.source.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            ("url", "http://127.0.0.1:3001", "env BILLING_URL"),
            ("timeout", "5s", "config.toml:3"),
            ("token", "***", "env BILLING_TOKEN"),
            ("region", "(none)", "unset"),
            ("breaker.threshold", "3", "default"),
            ("breaker.reset", "30s", "default"),
        ]
    );
    let text = explain.to_string();
    assert!(text.contains("settings `BillingSettings` at "), "{text}");
    assert!(
        text.contains("\n       timeout = 5s (config.toml:3)"),
        "{text}"
    );
    let json = explain.to_json();
    assert_eq!(json["nodes"][0]["kind"], "settings");
    assert_eq!(json["nodes"][0]["settings"][1]["source"], "config.toml:3");
    assert!(explain.to_dot().contains("shape=note"));
    assert!(
        explain
            .to_mermaid()
            .contains("timeout = 5s (config.toml:3)")
    );
    assert!(
        explain.to_svg().contains("data-kind=\"settings\"")
            || explain.to_svg().contains("settings")
    );
}

#[tokio::test]
async fn an_override_of_the_settings_key_skips_reading_it() {
    let given = BillingSettings {
        url: "http://fake".to_owned(),
        timeout: Duration::from_millis(1),
        token: Secret::new("t".to_owned()),
        region: None,
        breaker: BreakerSettings {
            threshold: 1,
            reset: Duration::from_secs(1),
        },
    };
    // No variable at all: read, the settings would be missing their url and token.
    let app = App::builder()
        .settings(Sources::from_env_map(Vec::<(String, String)>::new()))
        .provider(BillingSettings::provider())
        .override_value("billingSettings", given)
        .build()
        .unwrap();
    let billing = app.get::<BillingSettings>("billingSettings").await.unwrap();
    assert_eq!(billing.url, "http://fake");
    app.close().await.unwrap();
}

/// A settings type over what `cargo test` sets for the test binary.
#[derive(Debug)]
struct CargoPackage {
    name: String,
}

impl Settings for CargoPackage {
    const KEY: &'static str = "cargoPackage";
    const PREFIX: &'static str = "CARGO_PKG";

    fn fields() -> Vec<FieldSpec> {
        vec![FieldSpec::new("name", "String")]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let name = reader.value("name", None);
        Some(CargoPackage { name: name? })
    }
}

#[tokio::test]
async fn from_env_reads_the_process_environment() {
    // The one test that reads the process's environment, and it only reads: `CARGO_PKG_NAME`,
    // which cargo sets for every test binary it runs. Nothing is set or removed (that would
    // need `unsafe` and race the other tests), so it is safe beside them.
    let container = Container::builder()
        .settings(Sources::from_env())
        .provider(CargoPackage::provider())
        .build()
        .unwrap();
    let package = container.get::<CargoPackage>("cargoPackage").await.unwrap();
    assert_eq!(package.name, env!("CARGO_PKG_NAME"));
    container.close().await.unwrap();
}

// Issue 41: what a black-box run found in settings.

/// Settings under `SHOP`, whose file `SHOP_CONFIG` names (settings.md's own example).
#[derive(Debug)]
struct ShopPort {
    port: u16,
}

impl Settings for ShopPort {
    const KEY: &'static str = "shopPort";
    const PREFIX: &'static str = "SHOP";

    fn fields() -> Vec<FieldSpec> {
        vec![FieldSpec::new("port", "u16").default("8080")]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let port = reader.value("port", Some("8080"));
        Some(ShopPort { port: port? })
    }
}

#[tokio::test]
async fn the_variable_that_names_the_file_is_no_unknown_setting() {
    let path = std::env::temp_dir().join(format!("gt-settings-shop-{}.toml", std::process::id()));
    std::fs::write(&path, "[shop]\nport = 9090\n").unwrap();
    let vars = [("SHOP_CONFIG", path.to_str().unwrap())];
    // Strict: `SHOP_CONFIG` is under `SHOP_`, but it is the sources' own variable.
    let app = App::builder()
        .settings(
            Sources::from_env_map(vars)
                .file_from_env("SHOP_CONFIG")
                .strict(),
        )
        .provider(ShopPort::provider())
        .build()
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(app.get::<ShopPort>("shopPort").await.unwrap().port, 9090);
    app.close().await.unwrap();
    // Lenient: no warning either.
    let app = App::builder()
        .settings(Sources::from_env_map(vars).file_from_env("SHOP_CONFIG"))
        .provider(ShopPort::provider())
        .build()
        .unwrap();
    assert!(
        !app.warnings()
            .iter()
            .any(|w| matches!(w, Warning::UnknownSetting(_))),
        "{:?}",
        app.warnings()
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_missing_setting_names_a_set_variable_one_edit_away() {
    // `BILING_URL` is under no settings prefix: no GT0019 would point at it.
    let err = Container::builder()
        .settings(Sources::from_env_map([
            ("BILING_URL", "http://127.0.0.1:3001"),
            ("BILLING_TOKEN", SECRET),
        ]))
        .provider(BillingSettings::provider())
        .build()
        .unwrap_err();
    let [
        Problem::SettingMissing {
            variable, similar, ..
        },
    ] = err.problems()
    else {
        panic!("{err}")
    };
    assert_eq!(variable, "BILLING_URL");
    assert_eq!(similar.as_deref(), Some("BILING_URL"));
    assert_eq!(
        err.problems()[0].to_string(),
        "error[GT0016]: the setting `url` of `billingSettings` is not set\n  \
         set the variable BILLING_URL, or [billing] url in the settings file\n  \
         help: did you mean to set `BILLING_URL`? `BILING_URL` is set"
    );
    // Nothing close: the message is as before.
    let err = Container::builder()
        .settings(Sources::from_env_map([
            ("BILLING_TOKEN", SECRET),
            ("PATH", "/bin"),
        ]))
        .provider(BillingSettings::provider())
        .build()
        .unwrap_err();
    assert!(
        matches!(
            err.problems(),
            [Problem::SettingMissing { similar: None, .. }]
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("help: a field with a default, or an `Option`, may be left unset")
    );
}

#[test]
fn a_variable_another_field_reads_is_not_offered_for_a_missing_one() {
    // `SHOP_PORT` is one edit from `SHOP_PORTS`, but it is `port`'s own.
    #[derive(Debug)]
    struct Ports;
    impl Settings for Ports {
        const KEY: &'static str = "ports";
        const PREFIX: &'static str = "SHOP";
        fn fields() -> Vec<FieldSpec> {
            vec![FieldSpec::new("ports", "Vec<u16>")]
        }
        fn read(reader: &mut Reader<'_>) -> Option<Self> {
            reader.value::<Vec<u16>>("ports", None).map(|_| Ports)
        }
    }
    let err = Container::builder()
        .settings(Sources::from_env_map([("SHOP_PORT", "80")]))
        .provider(ShopPort::provider())
        .provider(Ports::provider())
        .build()
        .unwrap_err();
    assert!(
        matches!(
            err.problems(),
            [Problem::SettingMissing { similar: None, .. }]
        ),
        "{err}"
    );
}

#[test]
fn a_second_settings_call_is_refused_with_the_way_tests_give_values() {
    let production = || {
        App::builder()
            .settings(Sources::from_env_map(billing_env(&[])))
            .provider(BillingSettings::provider())
    };
    // A test wrapping the production builder would replace its sources silently.
    let err = production()
        .settings(Sources::from_env_map([("BILLING_URL", "http://fake")]))
        .build()
        .unwrap_err();
    let [
        Problem::SourcesTwice {
            first,
            second,
            settings,
        },
    ] = err.problems()
    else {
        panic!("{err}")
    };
    assert_eq!((first.file(), second.file()), (file!(), file!()));
    assert!(first.line() < second.line(), "{first} before {second}");
    assert_eq!(
        settings.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
        ["billingSettings"]
    );
    let text = err.problems()[0].to_string();
    assert!(
        text.starts_with("error[GT0022]: the settings sources are given twice"),
        "{text}"
    );
    assert!(
        text.contains("help: to give a test's values, override the settings type instead: `.override_value(\"billingSettings\", ..)`"),
        "{text}"
    );
    // A container's builder refuses it too, with or without a settings type.
    let err = Container::builder()
        .settings(Sources::from_env_map([("A", "1")]))
        .settings(Sources::from_env_map([("A", "2")]))
        .build()
        .unwrap_err();
    assert!(
        matches!(err.problems(), [Problem::SourcesTwice { .. }]),
        "{err}"
    );
}

#[test]
fn a_duration_that_does_not_read_says_what_one_looks_like() {
    let err = Container::builder()
        .settings(Sources::from_env_map(billing_env(&[(
            "BILLING_TIMEOUT",
            "abc",
        )])))
        .provider(BillingSettings::provider())
        .build()
        .unwrap_err();
    let [Problem::SettingInvalid { reason, .. }] = err.problems() else {
        panic!("{err}")
    };
    assert_eq!(
        reason,
        "not a duration: write a number and a unit, like `2s`, `150ms` or `1m 30s`"
    );
    assert!(!err.to_string().contains("expected number"), "{err}");
}

/// `breaker_threshold` beside the nested `breaker.threshold`: both `BILLING_BREAKER_THRESHOLD`.
struct ClashingSettings;

impl Settings for ClashingSettings {
    const KEY: &'static str = "clashing";
    const PREFIX: &'static str = "BILLING";

    fn fields() -> Vec<FieldSpec> {
        vec![
            FieldSpec::new("breaker", "BreakerSettings").nested(BreakerSettings::fields),
            FieldSpec::new("breaker_threshold", "u32").default("5"),
        ]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let breaker = reader.nested::<BreakerSettings>("breaker");
        let threshold = reader.value::<u32>("breaker_threshold", Some("5"));
        breaker.zip(threshold).map(|_| ClashingSettings)
    }
}

#[test]
fn two_fields_that_read_one_variable_are_refused_naming_both() {
    let err = Container::builder()
        .settings(Sources::from_env_map([("BILLING_BREAKER_THRESHOLD", "4")]))
        .provider(ClashingSettings::provider())
        .build()
        .unwrap_err();
    let [
        Problem::SettingsFieldsClash {
            settings,
            location,
            variable,
            fields,
        },
    ] = err.problems()
    else {
        panic!("{err}")
    };
    assert_eq!(settings.as_str(), "clashing");
    assert_eq!(location.file(), file!(), "where it was registered");
    assert_eq!(variable, "BILLING_BREAKER_THRESHOLD");
    assert_eq!(
        fields,
        &[
            "breaker.threshold".to_owned(),
            "breaker_threshold".to_owned()
        ]
    );
    let text = err.problems()[0].to_string();
    assert!(
        text.starts_with(&format!(
            "error[GT0022]: the fields `breaker.threshold` and `breaker_threshold` of `clashing` \
             ({location}) both read the variable BILLING_BREAKER_THRESHOLD\n  help: rename one"
        )),
        "{text}"
    );
}
