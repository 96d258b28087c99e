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

/// A module's own settings (issue 41): no `prefix`, since the module's path gives it one.
#[derive(Settings, Debug)]
#[settings(provides = "paymentSettings", discover = false)]
struct PaymentSettings {
    url: String,
}

#[tokio::test]
async fn a_settings_type_without_a_prefix_reads_under_its_modules_name() {
    let app = App::builder()
        .settings(Sources::from_env_map([("ORDERS_URL", "http://payments")]).strict())
        .module(
            Module::new("orders")
                .provider(PaymentSettings::provider())
                .export("paymentSettings"),
        )
        .build()
        .unwrap_or_else(|err| panic!("{err}"));
    let payment = app
        .get::<PaymentSettings>("orders::paymentSettings")
        .await
        .unwrap();
    assert_eq!(payment.url, "http://payments");
    app.close().await.unwrap();
}

#[test]
fn a_settings_type_without_a_prefix_at_the_root_is_refused_naming_the_fix() {
    let err = App::builder()
        .settings(Sources::from_env_map([("URL", "http://payments")]))
        .provider(PaymentSettings::provider())
        .build()
        .unwrap_err();
    let [Problem::SettingsWithoutPrefix { settings, location }] = err.problems() else {
        panic!("{err}")
    };
    assert_eq!(settings.as_str(), "paymentSettings");
    assert_eq!(location.file(), file!(), "the struct's declaration");
    let text = err.problems()[0].to_string();
    assert!(
        text.starts_with(&format!(
            "error[GT0022]: the settings `paymentSettings` ({location}) have no prefix, and are \
             registered outside a module, whose name would give them one\n  \
             help: give the type a prefix, like `#[settings(prefix = \"PAYMENT\")]`, or \
             register it in a module (`Module::provider`)"
        )),
        "{text}"
    );
}

/// A prefix-less type that `discover()` finds (the default).
mod discovered {
    use green_tea::prelude::*;

    #[derive(Settings, Debug)]
    #[settings(provides = "cartSettings")]
    pub(crate) struct CartSettings {
        pub(crate) size: u32,
    }
}

#[tokio::test]
async fn a_prefixless_type_is_refused_at_the_roots_discovery_and_read_in_its_modules() {
    let err = App::builder()
        .settings(Sources::from_env_map([("SIZE", "3")]))
        .discover()
        .build()
        .unwrap_err();
    assert!(
        matches!(
            err.problems(),
            [Problem::SettingsWithoutPrefix { settings, .. }] if settings.as_str() == "cartSettings"
        ),
        "{err}"
    );
    // A module that discovers it claims it: the root's discovery leaves it to the module.
    let app = App::builder()
        .settings(Sources::from_env_map([("CART_SIZE", "3")]).strict())
        .module(
            Module::new("cart")
                .discover_in(&[concat!(module_path!(), "::discovered")])
                .export("cartSettings"),
        )
        .discover()
        .build()
        .unwrap_or_else(|err| panic!("{err}"));
    let cart = app
        .get::<discovered::CartSettings>("cart::cartSettings")
        .await
        .unwrap();
    assert_eq!(cart.size, 3);
    app.close().await.unwrap();
}
