//! What a change of one setting touches (`explain_reload`): whether it may reload (its field
//! marked `reload`, on the field, its struct or a field holding it, and read by no switch),
//! the providers a change builds anew (the settings' own and every provider that depends on
//! them, decorators and collections included, in build order, nothing else), the workers
//! that need them; the names it answers to (variable, field, a module's prefix), and a name
//! no field reads (GT0104).

use std::time::Duration;

use green_tea::prelude::*;
use green_tea::settings::Sources;
use green_tea::workers::WorkerFn;
use green_tea::{BoxError, ProviderFn};

// The fields are read by `build()` and explained, never by the tests' code.
#[allow(dead_code)]
#[derive(Settings, Debug)]
struct BreakerSettings {
    #[settings(default = "5")]
    threshold: u32,
    #[settings(default = "30s")]
    reset: Duration,
}

#[allow(dead_code)]
#[derive(Settings, Debug)]
#[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
struct BillingSettings {
    url: Option<String>,
    #[settings(default = "2s", reload)]
    timeout: Duration,
    #[settings(nested, reload)]
    breaker: BreakerSettings,
    #[settings(default = "false")]
    fake: bool,
}

/// Every field reloadable, by the struct's mark.
#[allow(dead_code)]
#[derive(Settings, Debug)]
#[settings(provides = "mailSettings", reload, discover = false)]
struct MailSettings {
    #[settings(default = "localhost")]
    host: String,
}

type Ready = std::future::Ready<Result<u8, BoxError>>;

fn built(
    key: &'static str,
) -> ProviderFn<u8, impl Fn(green_tea::Needs<'static>) -> Ready + Send + Sync> {
    ProviderFn::new(key, |_| std::future::ready(Ok::<u8, BoxError>(1)))
}

fn app() -> Container {
    Container::builder()
        .settings(Sources::from_env_map([("BILLING_URL", "http://billing")]))
        .provider(BillingSettings::provider())
        .switch(Switch::new("fakeBilling", |b: &BillingSettings| b.fake).reads("fake"))
        .provider(built("billingApi").needs::<BillingSettings>("billingSettings"))
        .provider(built("billing").needs::<u8>("billingApi"))
        .decorator(
            ProviderFn::new("billing", |needs: green_tea::Needs<'static>| async move {
                Ok::<u8, BoxError>(*needs.get::<u8>(0)?)
            })
            .needs::<u8>("billing")
            .named("metered"),
        )
        .provider(built("orders").needs::<u8>("billing"))
        .provider(built("db"))
        .provider(built("reports").needs::<u8>("db"))
        .worker(WorkerFn::new("charger", |_, _| async { Ok(()) }).needs::<u8>("billing"))
        .worker(WorkerFn::new("sweeper", |_, _| async { Ok(()) }).needs::<u8>("db"))
        .module(
            Module::new("mail")
                .provider(MailSettings::provider())
                .provider(built("mailer").needs::<MailSettings>("mailSettings"))
                .export("mailer"),
        )
        .build()
        .unwrap()
}

#[test]
fn a_marked_field_reloads_and_rebuilds_its_dependents_only() {
    let app = app();
    let timeout = app.explain_reload("BILLING_TIMEOUT").unwrap();
    assert!(timeout.reloadable, "{timeout}");
    assert_eq!(timeout.field, "billingSettings.timeout");
    assert_eq!(
        timeout.rebuilds,
        [
            "BillingSettings",
            "billingApi",
            "billing",
            "metered",
            "orders"
        ]
    );
    assert_eq!(timeout.workers, ["charger"]);
    assert_eq!(
        timeout.to_string(),
        "`BILLING_TIMEOUT` (`billingSettings.timeout`): reloadable\n  \
         a change builds anew: `BillingSettings` → `billingApi` → `billing` → `metered` → \
         `orders`\n  workers that need them: `charger`"
    );
    // The same field by its path.
    let by_field = app.explain_reload("billingSettings.timeout").unwrap();
    assert_eq!(by_field.variable, "BILLING_TIMEOUT");
}

#[test]
fn a_nested_struct_follows_the_field_that_holds_it() {
    let app = app();
    let threshold = app.explain_reload("BILLING_BREAKER_THRESHOLD").unwrap();
    assert!(threshold.reloadable, "{threshold}");
    assert_eq!(threshold.field, "billingSettings.breaker.threshold");
}

#[test]
fn an_unmarked_field_and_one_a_switch_reads_need_a_restart() {
    let app = app();
    let url = app.explain_reload("BILLING_URL").unwrap();
    assert!(!url.reloadable);
    assert_eq!(
        url.restart_because,
        ["`billingSettings.url` is not marked `reload`"]
    );
    // What it would rebuild is said all the same.
    assert_eq!(url.rebuilds[0], "BillingSettings");
    let fake = app.explain_reload("BILLING_FAKE").unwrap();
    assert_eq!(
        fake.restart_because,
        [
            "`billingSettings.fake` is not marked `reload`",
            "the switch `fakeBilling` reads it: its outcome decides the graph's shape",
        ]
    );
    assert!(
        fake.to_string().starts_with(
            "`BILLING_FAKE` (`billingSettings.fake`): needs a restart\n  \
             `billingSettings.fake` is not marked `reload`\n  the switch `fakeBilling`"
        ),
        "{fake}"
    );
}

#[test]
fn a_switch_that_names_no_field_reads_them_all() {
    let app = Container::builder()
        .settings(Sources::from_env_map([("BILLING_URL", "http://billing")]))
        .provider(BillingSettings::provider())
        .switch(Switch::new("fakeBilling", |b: &BillingSettings| b.fake))
        .build()
        .unwrap();
    let timeout = app.explain_reload("BILLING_TIMEOUT").unwrap();
    assert_eq!(
        timeout.restart_because,
        ["the switch `fakeBilling` reads it: its outcome decides the graph's shape"]
    );
}

#[test]
fn a_modules_settings_answer_to_its_prefix_and_a_struct_mark_covers_every_field() {
    let app = app();
    let host = app.explain_reload("MAIL_HOST").unwrap();
    assert!(host.reloadable, "{host}");
    assert_eq!(host.field, "mail::mailSettings.host");
    assert_eq!(host.rebuilds, ["mail::MailSettings", "mail::mailer"]);
}

#[test]
fn a_name_no_field_reads_is_gt0104_with_the_closest() {
    let app = app();
    let err = app.explain_reload("BILLING_TIMEOUTS").unwrap_err();
    assert_eq!(err.code(), "GT0104");
    assert_eq!(err.suggestion.as_deref(), Some("BILLING_TIMEOUT"));
    assert!(
        err.to_string()
            .starts_with("error[GT0104]: no setting `BILLING_TIMEOUTS`; did you mean `BILLING_TIMEOUT`? settings: BILLING_URL, BILLING_TIMEOUT, "),
        "{err}"
    );
    let none = Container::builder().build().unwrap();
    assert_eq!(
        none.explain_reload("X").unwrap_err().to_string(),
        "error[GT0104]: no setting `X`: nothing registers a settings type \
         (`.provider(T::provider())`)"
    );
}
