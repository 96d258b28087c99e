//! Settings in modules: a settings type registered in a module reads under the module's name,
//! so one module registered twice reads two sets of variables, and the longer prefix claims
//! its own variables from the shorter.

use green_tea::error::Problem;
use green_tea::prelude::*;
use green_tea::settings::Sources;
use green_tea::{Warning, settings::UnknownSetting};

/// A library module's settings: read under `BILLING` at the app's root, under the module's
/// name inside one.
#[derive(Settings, Debug)]
#[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
struct BillingSettings {
    url: String,
}

fn billing() -> Module {
    Module::new("billing")
        .provider(BillingSettings::provider())
        .export("billingSettings")
}

fn app(vars: Vec<(&'static str, &'static str)>) -> Result<App, BuildError> {
    App::builder()
        .settings(Sources::from_env_map(vars))
        .module(billing().named("billing_eu"))
        .module(billing().named("billing_us"))
        .provider(BillingSettings::provider())
        .build()
}

#[tokio::test]
async fn a_module_registered_twice_reads_two_sets_of_variables() {
    let app = app(vec![
        ("BILLING_URL", "http://root"),
        ("BILLING_EU_URL", "http://eu"),
        ("BILLING_US_URL", "http://us"),
    ])
    .unwrap();
    let url = |key: &'static str| {
        let app = app.clone();
        async move { app.get::<BillingSettings>(key).await.unwrap().url.clone() }
    };
    assert_eq!(url("billing_eu::billingSettings").await, "http://eu");
    assert_eq!(url("billing_us::billingSettings").await, "http://us");
    assert_eq!(url("billingSettings").await, "http://root");
    // The longer prefixes claim their own: nothing under BILLING_ is unknown.
    let unknown = app
        .warnings()
        .iter()
        .filter(|w| matches!(w, Warning::UnknownSetting(_)))
        .count();
    assert_eq!(unknown, 0, "{:?}", app.warnings());
}

#[test]
fn a_modules_missing_setting_names_its_own_variable() {
    let err = app(vec![
        ("BILLING_URL", "http://root"),
        ("BILLING_EU_URL", "http://eu"),
    ])
    .unwrap_err();
    let missing: Vec<&str> = err
        .problems()
        .iter()
        .filter_map(|p| match p {
            Problem::SettingMissing { variable, .. } => Some(variable.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(missing, ["BILLING_US_URL"], "{err}");
    assert!(
        err.to_string().contains("billing_us::billingSettings"),
        "{err}"
    );
}

#[test]
fn a_mistyped_variable_under_a_modules_prefix_gets_its_did_you_mean() {
    let app = app(vec![
        ("BILLING_URL", "http://root"),
        ("BILLING_EU_URL", "http://eu"),
        ("BILLING_US_URL", "http://us"),
        ("BILLING_EU_URLL", "http://typo"),
    ])
    .unwrap();
    let unknown: Vec<&UnknownSetting> = app
        .warnings()
        .iter()
        .filter_map(|w| match w {
            Warning::UnknownSetting(u) => Some(u),
            _ => None,
        })
        .collect();
    assert_eq!(unknown.len(), 1, "{:?}", app.warnings());
    assert_eq!(unknown[0].name, "BILLING_EU_URLL");
    assert_eq!(unknown[0].suggestion.as_deref(), Some("BILLING_EU_URL"));
}
