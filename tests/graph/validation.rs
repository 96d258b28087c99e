//! `build()` checks the whole graph before anything is constructed.

use crate::support;

use green_tea::Container;
use green_tea::error::{NodeKind, Problem};
use support::{Log, Probe, Service};

#[test]
fn build_constructs_nothing() {
    let log = Log::default();
    let container = Container::builder()
        .provider(Probe::new("base", &[], &log))
        .provider(Probe::new("top", &["base"], &log))
        .build()
        .unwrap();
    assert!(log.events().is_empty());
    assert_eq!(container.keys().len(), 2);
}

#[test]
fn every_problem_is_listed_in_one_error_in_a_stable_order() {
    let log = Log::default();
    let build = || {
        Container::builder()
            .provider(Probe::new("billing_api", &[], &log))
            .provider(Probe::new("billing", &["billingApi"], &log))
            .provider(Probe::new("a", &["b"], &log))
            .provider(Probe::new("b", &["a"], &log))
            .provider(Probe::new("billing", &[], &log))
            .override_value("nothing", 1_u8)
            .build()
            .unwrap_err()
    };
    let err = build();
    let codes: Vec<&str> = err.problems().iter().map(Problem::code).collect();
    assert_eq!(codes, ["GT0001", "GT0002", "GT0003", "GT0005"]);
    assert_eq!(
        err.to_string(),
        build().to_string(),
        "the text is deterministic"
    );
    assert!(
        err.to_string()
            .ends_with("the graph has 4 problems; nothing was built")
    );
    assert!(log.events().is_empty(), "nothing was built");
}

#[test]
fn a_missing_key_reads_like_the_design() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Probe::new("billing_api", &[], &log))
        .provider(Probe::new("billing", &["billingApi"], &log))
        .provider(Probe::new("orders", &["billing"], &log))
        .build()
        .unwrap_err();
    let text = err.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "error[GT0001]: no provider for `billingApi`");
    assert!(
        lines[1].starts_with(&format!(
            "  needed by provider `billing` ({}:",
            support::FILE
        )),
        "{text}"
    );
    assert!(
        lines[2].starts_with("    which is needed by provider `orders` ("),
        "{text}"
    );
    assert!(
        lines[3].starts_with(&format!(
            "  help: did you mean `billing_api`? (provided by {}:",
            support::FILE
        )),
        "{text}"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_a_mismatch_naming_both_types() {
    let log = Log::default();
    let err = Container::builder()
        .value("base", String::from("not a service"))
        .provider(Probe::new("top", &["base"], &log))
        .build()
        .unwrap_err();
    let Problem::TypeMismatch {
        key,
        expected,
        provided,
        ..
    } = &err.problems()[0]
    else {
        panic!("{err}");
    };
    assert_eq!(key.as_str(), "base");
    assert_eq!(expected.short_name(), "Service");
    assert_eq!(provided.short_name(), "String");
    assert!(
        err.to_string()
            .contains("`base` has type `String`, but provider `top`")
    );
}

#[test]
fn an_override_of_the_wrong_type_is_a_mismatch() {
    let log = Log::default();
    let err = Container::builder()
        .provider(Probe::new("billingApi", &[], &log))
        .override_value("billingApi", 42_u32)
        .build()
        .unwrap_err();
    assert_eq!(err.problems().len(), 1, "one problem: {err}");
    assert!(matches!(
        &err.problems()[0],
        Problem::OverrideTypeMismatch { by, .. } if by.kind == NodeKind::Override
    ));
    assert_eq!(err.problems()[0].code(), "GT0004");
    assert!(
        err.to_string()
            .contains("override value `billingApi` (tests/graph/validation.rs:")
            && err
                .to_string()
                .contains("provides `billingApi` as `u32`, but `billingApi` has type `Service`"),
        "{err}"
    );
}

#[tokio::test]
async fn an_override_replaces_the_provider_and_is_never_built_around() {
    let log = Log::default();
    let real = Probe::new("billingApi", &[], &log);
    let real_builds = real.counter();
    let fake = Service {
        name: "fake".into(),
        disposed: Default::default(),
    };
    let container = Container::builder()
        .provider(real)
        .provider(Probe::new("billing", &["billingApi"], &log))
        .override_value("billingApi", fake)
        .build()
        .unwrap();
    container.get::<Service>("billing").await.unwrap();
    assert_eq!(
        container.get::<Service>("billingApi").await.unwrap().name,
        "fake"
    );
    assert_eq!(real_builds.load(std::sync::atomic::Ordering::SeqCst), 0);
    let explain = container.explain_key("billing").unwrap();
    assert!(explain.nodes[0].overridden);
    container.close().await.unwrap();
}
