//! The text deserializer, type by type, and every bad input of issue 26, through the pass
//! `build()` runs (never the process's environment: every source is a map or an inline file).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use toml::de::DeValue;

use super::de::{Raw, from_raw};
use super::read::{ToRead, read_all};
use super::{
    ByteSize, FieldSpec, Reader, Secret, SettingSource, Settings, Sources, UnknownSetting,
};
use crate::error::Problem;
use crate::key::Key;

fn text<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    from_raw::<T>(Raw::Text(text)).map_err(|e| e.message)
}

fn toml_value<T: serde::de::DeserializeOwned>(toml: &str) -> Result<T, String> {
    let value = DeValue::parse(toml).expect("valid TOML");
    from_raw::<T>(Raw::of_toml(value.get_ref())).map_err(|e| e.message)
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Fast,
    Safe,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Port(u16);

#[test]
fn text_reads_as_the_type_asked() {
    assert_eq!(
        text::<String>("http://127.0.0.1:3001"),
        Ok("http://127.0.0.1:3001".to_owned())
    );
    assert_eq!(text::<bool>("true"), Ok(true));
    assert_eq!(text::<bool>("FALSE"), Ok(false));
    assert_eq!(text::<bool>("1"), Ok(true));
    assert_eq!(text::<bool>("0"), Ok(false));
    assert!(text::<bool>("yes").unwrap_err().contains("not a boolean"));
    assert_eq!(text::<u8>("255"), Ok(255));
    assert_eq!(text::<u16>(" 8080 "), Ok(8080));
    assert_eq!(text::<u32>("4000000000"), Ok(4_000_000_000));
    assert_eq!(text::<u64>("18446744073709551615"), Ok(u64::MAX));
    assert_eq!(
        text::<u128>("340282366920938463463374607431768211455"),
        Ok(u128::MAX)
    );
    assert_eq!(text::<i8>("-128"), Ok(-128));
    assert_eq!(text::<i16>("-300"), Ok(-300));
    assert_eq!(text::<i32>("+7"), Ok(7));
    assert_eq!(text::<i64>("-9000000000"), Ok(-9_000_000_000));
    assert_eq!(text::<i128>("-1"), Ok(-1));
    assert_eq!(text::<usize>("3"), Ok(3));
    assert_eq!(text::<f64>("0.25"), Ok(0.25));
    assert_eq!(text::<f32>("1.5"), Ok(1.5));
    assert_eq!(text::<char>("x"), Ok('x'));
    assert!(text::<char>("xy").is_err());
    assert_eq!(text::<Option<u32>>("5"), Ok(Some(5)));
    assert_eq!(text::<Port>("443"), Ok(Port(443)));
    assert_eq!(text::<Mode>("safe"), Ok(Mode::Safe));
    assert!(
        text::<Mode>("slow")
            .unwrap_err()
            .contains("unknown variant")
    );
    assert_eq!(
        text::<Vec<String>>("a, b,c"),
        Ok(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
    );
    assert_eq!(text::<Vec<u16>>("80,443"), Ok(vec![80, 443]));
    assert!(text::<Vec<u16>>("80,,443").unwrap_err().contains("empty"));
    assert!(
        text::<Vec<u8>>("1,300")
            .unwrap_err()
            .contains("item 2: out of range for `u8`")
    );
    assert_eq!(text::<(u8, String)>("1,x"), Ok((1, "x".to_owned())));
    assert_eq!(
        text::<BTreeMap<String, u32>>("eu=1, us=2"),
        Ok(BTreeMap::from([("eu".to_owned(), 1), ("us".to_owned(), 2)]))
    );
    assert_eq!(text::<Duration>("2s"), Ok(Duration::from_secs(2)));
    assert_eq!(text::<Duration>("1m 30s"), Ok(Duration::from_secs(90)));
    assert_eq!(text::<Duration>("500ms"), Ok(Duration::from_millis(500)));
    assert_eq!(
        text::<Vec<Duration>>("1s,2s"),
        Ok(vec![Duration::from_secs(1), Duration::from_secs(2)])
    );
    assert_eq!(text::<ByteSize>("512KiB"), Ok(ByteSize::kib(512)));
    assert_eq!(text::<ByteSize>("2MB"), Ok(ByteSize::mb(2)));
    assert_eq!(
        text::<Secret<String>>("s3cr3t").map(Secret::into_inner),
        Ok("s3cr3t".to_owned())
    );
    assert_eq!(
        text::<IpAddr>("127.0.0.1"),
        Ok(IpAddr::from([127, 0, 0, 1]))
    );
    assert_eq!(
        text::<std::path::PathBuf>("/etc/app"),
        Ok("/etc/app".into())
    );
}

#[test]
fn toml_values_read_as_the_type_asked() {
    assert_eq!(toml_value::<u32>("3"), Ok(3));
    assert_eq!(toml_value::<u8>("0x10"), Ok(16));
    assert_eq!(toml_value::<i64>("-1_000"), Ok(-1000));
    assert_eq!(toml_value::<f64>("2"), Ok(2.0));
    assert_eq!(toml_value::<f64>("2.5"), Ok(2.5));
    assert_eq!(toml_value::<bool>("true"), Ok(true));
    assert_eq!(toml_value::<String>("\"x\""), Ok("x".to_owned()));
    assert_eq!(toml_value::<Duration>("\"2s\""), Ok(Duration::from_secs(2)));
    assert_eq!(toml_value::<Vec<u32>>("[1, 2]"), Ok(vec![1, 2]));
    assert_eq!(
        toml_value::<Vec<Duration>>("[\"1s\", \"2m\"]"),
        Ok(vec![Duration::from_secs(1), Duration::from_secs(120)])
    );
    assert_eq!(toml_value::<ByteSize>("1024"), Ok(ByteSize::b(1024)));
    assert_eq!(toml_value::<ByteSize>("\"1KiB\""), Ok(ByteSize::kib(1)));
    assert_eq!(
        toml_value::<BTreeMap<String, u8>>("{ eu = 1 }"),
        Ok(BTreeMap::from([("eu".to_owned(), 1)]))
    );
    assert!(
        toml_value::<String>("3")
            .unwrap_err()
            .contains("found a TOML integer")
    );
    assert!(
        toml_value::<u8>("300")
            .unwrap_err()
            .contains("out of range for `u8` (0 to 255)")
    );
    assert!(
        toml_value::<u32>("true")
            .unwrap_err()
            .contains("found a TOML boolean")
    );
    assert!(
        toml_value::<Duration>("30")
            .unwrap_err()
            .contains("needs a unit")
    );
}

#[test]
fn numbers_out_of_range_are_errors_not_wraps() {
    assert_eq!(
        text::<u8>("256"),
        Err("out of range for `u8` (0 to 255)".to_owned())
    );
    assert_eq!(
        text::<u8>("-1"),
        Err("out of range for `u8` (0 to 255)".to_owned())
    );
    assert_eq!(
        text::<i8>("-129"),
        Err("out of range for `i8` (-128 to 127)".to_owned())
    );
    assert!(
        text::<u64>("18446744073709551616")
            .unwrap_err()
            .contains("out of range for `u64`")
    );
    assert!(
        text::<f32>("1e39")
            .unwrap_err()
            .contains("out of range for `f32`")
    );
    assert_eq!(
        text::<u32>("3.5"),
        Err("not a whole number (`u32`)".to_owned())
    );
    assert_eq!(
        text::<u32>("ten"),
        Err("not a whole number (`u32`)".to_owned())
    );
}

#[test]
fn a_duration_without_a_unit_is_an_error() {
    assert!(text::<Duration>("30").unwrap_err().contains("needs a unit"));
    assert!(
        text::<Duration>("1.5")
            .unwrap_err()
            .contains("needs a unit")
    );
    assert!(
        text::<Duration>("2 parsecs")
            .unwrap_err()
            .contains("not a duration")
    );
}

// A settings type written by hand, as the derive writes it.
#[derive(Debug)]
struct Billing {
    url: String,
    timeout: Duration,
    token: Secret<String>,
    region: Option<String>,
    retries: u8,
    breaker: Breaker,
}

#[derive(Debug)]
struct Breaker {
    threshold: u32,
    reset: Duration,
}

impl Settings for Billing {
    const KEY: &'static str = "billingSettings";
    const PREFIX: &'static str = "BILLING";

    fn fields() -> Vec<FieldSpec> {
        vec![
            FieldSpec::new("url", "String"),
            FieldSpec::new("timeout", "Duration").default("2s"),
            FieldSpec::new("token", "Secret<String>").secret(),
            FieldSpec::new("region", "Option<String>").optional(),
            FieldSpec::new("retries", "u8").default("3"),
            FieldSpec::new("breaker", "Breaker").nested(Breaker::fields),
        ]
    }

    fn read(reader: &mut Reader<'_>) -> Option<Self> {
        let url = reader.value("url", None);
        let timeout = reader.value("timeout", Some("2s"));
        let token = reader.secret("token", None);
        let region = reader.optional("region");
        let retries = reader.value("retries", Some("3"));
        let breaker = reader.nested("breaker");
        Some(Billing {
            url: url?,
            timeout: timeout?,
            token: token?,
            region: region?,
            retries: retries?,
            breaker: breaker?,
        })
    }

    fn validate(&self) -> Result<(), String> {
        if self.url.starts_with("http") {
            Ok(())
        } else {
            Err("`url` is not an http URL".to_owned())
        }
    }
}

impl Settings for Breaker {
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
        Some(Breaker {
            threshold: threshold?,
            reset: reset?,
        })
    }

    fn validate(&self) -> Result<(), String> {
        match self.threshold {
            0 => Err("`threshold` must be at least 1".to_owned()),
            _ => Ok(()),
        }
    }
}

struct Read<T> {
    value: Option<Arc<T>>,
    problems: Vec<Problem>,
    warnings: Vec<UnknownSetting>,
}

fn read_as<T: Settings>(sources: Sources) -> Read<T> {
    let provider = T::provider();
    let outcome = read_all(
        &sources,
        &[ToRead {
            hook: &provider,
            key: Key::from_static(T::KEY),
            prefix: T::PREFIX.to_owned(),
            overridden: false,
            location: crate::key::Location::caller(),
        }],
    );
    Read {
        value: provider.value().cloned(),
        problems: outcome.problems,
        warnings: outcome.warnings,
    }
}

const GOOD: [(&str, &str); 2] = [
    ("BILLING_URL", "http://billing"),
    ("BILLING_TOKEN", "s3cr3t"),
];

fn env(extra: &[(&str, &str)]) -> Sources {
    let mut vars: BTreeMap<&str, &str> = GOOD.into_iter().collect();
    vars.extend(extra.iter().copied());
    Sources::from_env_map(vars)
}

fn only_problem(read: &Read<impl Settings>) -> &Problem {
    assert_eq!(read.problems.len(), 1, "{:#?}", read.problems);
    &read.problems[0]
}

#[test]
fn layers_defaults_then_the_file_then_the_environment() {
    let sources = env(&[("BILLING_TIMEOUT", "5s")]).toml(
        "[billing]\ntimeout = \"3s\"\nretries = 7\n\n[billing.breaker]\nthreshold = 9\n",
        "app.toml",
    );
    let read = read_as::<Billing>(sources);
    assert!(read.problems.is_empty(), "{:#?}", read.problems);
    let billing = read.value.expect("read");
    assert_eq!(
        billing.timeout,
        Duration::from_secs(5),
        "the environment wins over the file"
    );
    assert_eq!(billing.retries, 7, "the file wins over the default");
    assert_eq!(billing.breaker.threshold, 9);
    assert_eq!(
        billing.breaker.reset,
        Duration::from_secs(30),
        "the default"
    );
    assert_eq!(billing.region, None);
    assert_eq!(billing.token.expose(), "s3cr3t");
}

#[test]
fn an_empty_or_whitespace_only_value_is_an_error_naming_the_variable() {
    for value in ["", "   "] {
        let read = read_as::<Billing>(env(&[("BILLING_URL", value)]));
        let Problem::SettingInvalid {
            field,
            source,
            reason,
            ..
        } = only_problem(&read)
        else {
            panic!("{:?}", read.problems)
        };
        assert_eq!(field, "url");
        assert_eq!(*source, SettingSource::Env("BILLING_URL".to_owned()));
        assert!(reason.contains(if value.is_empty() {
            "is empty"
        } else {
            "only whitespace"
        }));
        assert!(read.problems[0].to_string().contains("env BILLING_URL"));
    }
}

#[cfg(unix)]
#[test]
fn a_value_that_is_not_utf8_is_an_error_never_a_replacement_character() {
    use std::os::unix::ffi::OsStringExt;
    let sources = Sources::from_env_os_map([
        (
            OsString::from("BILLING_URL"),
            OsString::from_vec(b"http://bill\xffing".to_vec()),
        ),
        (OsString::from("BILLING_TOKEN"), OsString::from("t")),
    ]);
    let read = read_as::<Billing>(sources);
    let Problem::SettingInvalid { found, reason, .. } = only_problem(&read) else {
        panic!("{:?}", read.problems)
    };
    assert!(reason.contains("not valid UTF-8"));
    assert!(found.contains("\\xFF"), "the byte shown escaped: {found}");
    assert!(!read.problems[0].to_string().contains('\u{FFFD}'));
}

#[test]
fn a_named_file_that_does_not_exist_is_an_error() {
    let read = read_as::<Billing>(env(&[]).file("/nonexistent/green-tea/settings.toml"));
    let Problem::SettingInvalid {
        settings,
        field,
        source,
        reason,
        ..
    } = only_problem(&read)
    else {
        panic!("{:?}", read.problems)
    };
    assert!(
        settings.as_str().is_empty() && field.is_empty(),
        "about the file itself"
    );
    assert!(
        matches!(source, SettingSource::File { path, line: 0, .. } if path.ends_with("settings.toml"))
    );
    assert_eq!(reason, "does not exist");
    assert_eq!(
        read.problems[0].to_string(),
        "error[GT0017]: the settings file `/nonexistent/green-tea/settings.toml` does not exist"
    );
}

#[test]
fn a_file_named_by_a_variable_is_read_only_when_it_is_set() {
    let read = read_as::<Billing>(env(&[]).file_from_env("SHOP_CONFIG"));
    assert!(read.problems.is_empty() && read.value.is_some());
    let read = read_as::<Billing>(
        env(&[("SHOP_CONFIG", "/nonexistent/shop.toml")]).file_from_env("SHOP_CONFIG"),
    );
    let Problem::SettingInvalid { reason, .. } = only_problem(&read) else {
        panic!()
    };
    assert_eq!(reason, "does not exist (named by SHOP_CONFIG)");
}

#[test]
fn a_file_that_does_not_parse_names_its_line_and_column() {
    let read =
        read_as::<Billing>(env(&[]).toml("[billing]\nretries = 3\ntimeout = \"2s\n", "app.toml"));
    assert!(!read.problems.is_empty());
    let Problem::SettingInvalid { source, reason, .. } = &read.problems[0] else {
        panic!()
    };
    assert!(reason.starts_with("is not valid TOML"), "{reason}");
    assert!(
        matches!(source, SettingSource::File { line: 3, column, .. } if *column > 1),
        "{source:?}"
    );
    // A setting the file would have set is not reported as missing too.
    assert!(
        !read
            .problems
            .iter()
            .any(|p| matches!(p, Problem::SettingMissing { .. }))
    );
}

#[test]
fn a_duplicate_key_in_the_file_is_an_error_at_its_line() {
    let read =
        read_as::<Billing>(env(&[]).toml("[billing]\nretries = 3\nretries = 4\n", "app.toml"));
    let Problem::SettingInvalid { source, reason, .. } = only_problem(&read) else {
        panic!("{:?}", read.problems)
    };
    assert!(reason.contains("duplicate key"), "{reason}");
    assert_eq!(
        *source,
        SettingSource::File {
            path: "app.toml".to_owned(),
            line: 3,
            column: 1
        }
    );
}

#[test]
fn a_number_out_of_range_is_an_error() {
    let read = read_as::<Billing>(env(&[("BILLING_RETRIES", "300")]));
    let Problem::SettingInvalid {
        field,
        expected,
        found,
        reason,
        ..
    } = only_problem(&read)
    else {
        panic!()
    };
    assert_eq!(
        (field.as_str(), *expected, found.as_str()),
        ("retries", "u8", "300")
    );
    assert_eq!(reason, "out of range for `u8` (0 to 255)");
    let read = read_as::<Billing>(env(&[]).toml("[billing]\nretries = 300\n", "app.toml"));
    let Problem::SettingInvalid { source, .. } = only_problem(&read) else {
        panic!()
    };
    assert_eq!(
        *source,
        SettingSource::File {
            path: "app.toml".to_owned(),
            line: 2,
            column: 11
        }
    );
}

#[test]
fn a_duration_without_a_unit_is_an_error_from_either_source() {
    let read = read_as::<Billing>(env(&[("BILLING_TIMEOUT", "30")]));
    let Problem::SettingInvalid { reason, .. } = only_problem(&read) else {
        panic!()
    };
    assert!(reason.contains("needs a unit"));
    let read = read_as::<Billing>(env(&[]).toml("[billing]\ntimeout = 30\n", "app.toml"));
    let Problem::SettingInvalid { reason, found, .. } = only_problem(&read) else {
        panic!()
    };
    assert!(reason.contains("needs a unit"));
    assert_eq!(found, "30");
}

#[test]
fn an_empty_secret_is_an_error_and_never_shows_what_it_is() {
    let read = read_as::<Billing>(env(&[("BILLING_TOKEN", "")]));
    let Problem::SettingInvalid {
        field,
        found,
        reason,
        ..
    } = only_problem(&read)
    else {
        panic!()
    };
    assert_eq!(field, "token");
    assert_eq!(found, "***");
    assert!(reason.contains("a secret that is set must have a value"));
}

#[test]
fn a_secret_that_does_not_parse_quotes_nothing_of_it() {
    #[derive(Debug)]
    struct Pin(#[allow(dead_code)] Secret<u32>);
    impl Settings for Pin {
        const KEY: &'static str = "pin";
        const PREFIX: &'static str = "PIN";
        fn fields() -> Vec<FieldSpec> {
            vec![FieldSpec::new("code", "Secret<u32>").secret()]
        }
        fn read(reader: &mut Reader<'_>) -> Option<Self> {
            reader.secret("code", None).map(Pin)
        }
    }
    let read = read_as::<Pin>(Sources::from_env_map([("PIN_CODE", "hunter2")]));
    let problem = only_problem(&read).to_string();
    assert!(!problem.contains("hunter2"), "{problem}");
    assert!(problem.contains("`***`"));
}

#[test]
fn every_problem_of_a_type_at_once_and_validation_after() {
    let read = read_as::<Billing>(Sources::from_env_map([
        ("BILLING_TIMEOUT", "soon"),
        ("BILLING_BREAKER_THRESHOLD", "x"),
    ]));
    let codes: Vec<&str> = read.problems.iter().map(Problem::code).collect();
    assert_eq!(
        codes,
        ["GT0016", "GT0017", "GT0016", "GT0017"],
        "{:#?}",
        read.problems
    );
    let read = read_as::<Billing>(env(&[
        ("BILLING_BREAKER_THRESHOLD", "0"),
        ("BILLING_URL", "ftp://x"),
    ]));
    let reasons: Vec<String> = read
        .problems
        .iter()
        .map(|p| match p {
            Problem::SettingRejected { reason, .. } => reason.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        reasons,
        ["`breaker`: `threshold` must be at least 1"],
        "a nested type's failure stops its parent's validate"
    );
}

#[test]
fn a_missing_setting_names_its_variable_and_file_key() {
    let read = read_as::<Billing>(Sources::from_env_map([("BILLING_URL", "http://x")]));
    let Problem::SettingMissing {
        field,
        variable,
        file_key,
        ..
    } = only_problem(&read)
    else {
        panic!()
    };
    assert_eq!(
        (field.as_str(), variable.as_str(), file_key.as_str()),
        ("token", "BILLING_TOKEN", "[billing] token")
    );
}

#[test]
fn unknown_variables_and_keys_are_warnings_with_did_you_mean() {
    let sources = env(&[("BILLING_URLL", "x"), ("BILLING_SERVICE_HOST", "10.0.0.1"), ("OTHER_URLL", "x")])
        .toml("[billing]\nretrys = 2\n[billing.breaker]\nreset = \"1s\"\nthreshhold = 2\n[other]\nx = 1\n", "app.toml");
    let read = read_as::<Billing>(sources);
    assert!(read.problems.is_empty(), "{:#?}", read.problems);
    let found: Vec<(&str, Option<&str>)> = read
        .warnings
        .iter()
        .map(|w| (w.name.as_str(), w.suggestion.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            ("BILLING_SERVICE_HOST", None),
            ("BILLING_URLL", Some("BILLING_URL")),
            (
                "billing.breaker.threshhold",
                Some("billing.breaker.threshold")
            ),
            ("billing.retrys", Some("billing.retries")),
        ]
    );
    assert_eq!(
        read.warnings[3].source,
        SettingSource::File {
            path: "app.toml".to_owned(),
            line: 2,
            column: 1
        }
    );
}

#[test]
fn strict_sources_make_unknown_settings_problems() {
    let read = read_as::<Billing>(env(&[("BILLING_URLL", "x")]).strict());
    assert!(read.warnings.is_empty());
    let Problem::UnknownSetting {
        name,
        suggestion,
        prefix,
        ..
    } = &read.problems[0]
    else {
        panic!()
    };
    assert_eq!(
        (name.as_str(), suggestion.as_deref(), prefix.as_str()),
        ("BILLING_URLL", Some("BILLING_URL"), "BILLING_")
    );
    assert!(
        read.problems[0]
            .to_string()
            .contains("did you mean `BILLING_URL`?")
    );
}

#[test]
fn a_nested_table_that_is_a_value_is_an_error() {
    let read = read_as::<Billing>(env(&[]).toml("[billing]\nbreaker = 3\n", "app.toml"));
    let Problem::SettingInvalid {
        field, expected, ..
    } = only_problem(&read)
    else {
        panic!("{:?}", read.problems)
    };
    assert_eq!((field.as_str(), *expected), ("breaker", "a table"));
}

#[test]
fn sources_debug_names_variables_but_shows_no_value() {
    let sources = Sources::from_env_map([("BILLING_TOKEN", "s3cr3t")])
        .toml("[billing]\ntoken = \"f1le-s3cr3t\"\n", "app.toml");
    let debug = format!("{sources:?}");
    assert!(
        debug.contains("BILLING_TOKEN") && debug.contains("app.toml"),
        "{debug}"
    );
    assert!(!debug.contains("s3cr3t"), "{debug}");
}
