//! `App::explain_reload`: the routes a change of a setting reaches (through their handler's
//! needs or a step's), the routes it does not, a route off in today's shape left out, and the
//! JSON, which holds the container's answer flat beside the routes.

use std::time::Duration;

use green_tea::prelude::*;
use green_tea::settings::Sources;
use green_tea::steps::StepFn;

#[derive(Settings)]
#[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
#[allow(dead_code)]
struct BillingSettings {
    #[settings(default = "2s", reload)]
    timeout: Duration,
    #[settings(default = "false")]
    audit: bool,
}

#[provider(provides = "billingApi", needs = ["billingSettings"], discover = false)]
fn billing_api(settings: &BillingSettings) -> String {
    format!("{:?}", settings.timeout)
}

fn app() -> App {
    App::builder()
        .settings(Sources::from_env_map([("BILLING_AUDIT", "false")]))
        .provider(BillingSettings::provider())
        .provider(billing_api::provider())
        .value("db", 5432_u32)
        .switch(Switch::new("audit", |b: &BillingSettings| b.audit).reads("audit"))
        .step(StepFn::new("charge", |_, _| Ok(7_u64)).needs::<String>("billingApi"))
        .route(
            Route::post("/orders", |_: RequestContext| async { "ok" })
                .needs::<u64>("charge")
                .named("Orders::create"),
        )
        .route(
            Route::get("/health", |_: RequestContext| async { "ok" })
                .needs::<u32>("db")
                .named("health"),
        )
        .route(
            Route::get("/audit", |_: RequestContext| async { "ok" })
                .needs::<String>("billingApi")
                .named("Audit::list")
                .when("audit"),
        )
        .build()
        .unwrap()
}

#[test]
fn the_routes_a_change_reaches_through_a_step_and_not_an_off_one() {
    let app = app();
    let timeout = app.explain_reload("BILLING_TIMEOUT").unwrap();
    assert!(timeout.reload.reloadable, "{timeout}");
    assert_eq!(timeout.reload.rebuilds, ["BillingSettings", "billing_api"]);
    // Through the step `charge`; `/health` needs nothing it rebuilds; `/audit` is off today.
    assert_eq!(timeout.routes, ["POST /orders -> Orders::create"]);
    let json = timeout.to_json();
    assert_eq!(json["variable"], "BILLING_TIMEOUT");
    assert_eq!(json["reloadable"], true);
    assert_eq!(json["routes"][0], "POST /orders -> Orders::create");
    assert!(json.get("rebuilt").is_none(), "{json}");

    let audit = app.explain_reload("billingSettings.audit").unwrap();
    assert_eq!(
        audit.reload.restart_because,
        [
            "`billingSettings.audit` is not marked `reload`",
            "the switch `audit` reads it: its outcome decides the graph's shape",
        ]
    );
    // The settings report, and so the explain page, marks the reloadable field.
    let report = app.settings_report();
    assert_eq!(
        report.to_string(),
        "billingSettings\n  timeout = 2s (default; reloadable)\n  audit = false (env BILLING_AUDIT)\n  \
         decides `audit` (audit)\n"
    );
    let rows = &app.explain_all().to_json()["settings"]["settings"][0]["fields"];
    assert_eq!(rows[0]["reload"], true);
    assert!(rows[1].get("reload").is_none(), "{rows}");
    assert!(
        app.explain_all()
            .to_html()
            .contains("timeout = 2s (default; reloadable)")
    );

    let unknown = app.explain_reload("BILLING_TIMEOUTT").unwrap_err();
    assert_eq!(unknown.suggestion.as_deref(), Some("BILLING_TIMEOUT"));
}
