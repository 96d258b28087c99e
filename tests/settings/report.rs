//! The app-wide settings report: every settings type's fields, values and sources, secrets
//! `***`, on `App::settings_report` and on the explain page.

use green_tea::prelude::*;
use green_tea::settings::{Secret, Sources};

#[derive(Settings, Debug)]
#[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
#[expect(dead_code, reason = "the report reads the fields, not the test")]
struct BillingSettings {
    #[settings(default = "http://127.0.0.1:3001")]
    url: String,
    token: Secret<String>,
}

#[derive(Settings, Debug)]
#[settings(provides = "mailSettings", prefix = "MAIL", discover = false)]
#[expect(dead_code, reason = "the report reads the fields, not the test")]
struct MailSettings {
    #[settings(default = "25")]
    port: u16,
}

const SECRET: &str = "report-s3cr3t-41";

fn builder() -> AppBuilder {
    App::builder()
        .settings(
            Sources::from_env_map([("BILLING_TOKEN", SECRET)])
                .toml("[mail]\nport = 2525\n", "config.toml"),
        )
        .provider(BillingSettings::provider())
        .provider(MailSettings::provider())
        .explain_page("/_green-tea")
}

#[tokio::test]
async fn the_report_lists_every_settings_type_with_sources_and_masks_secrets() {
    let app = builder().build().unwrap();
    let report = app.settings_report();
    assert_eq!(
        report.to_string(),
        "billingSettings\n  url = http://127.0.0.1:3001 (default)\n  token = *** (env BILLING_TOKEN)\n\
         mailSettings\n  port = 2525 (config.toml:2)\n"
    );
    let json = report.to_json().to_string();
    assert!(json.contains("\"source\":\"env BILLING_TOKEN\""), "{json}");
    let page = green_tea::test::TestClient::new(app.clone())
        .get("/_green-tea")
        .send()
        .await
        .text();
    assert!(
        page.contains("<section class=\"settings-report\">"),
        "{page}"
    );
    assert!(page.contains("port = 2525 (config.toml:2)"), "{page}");
    for rendering in [report.to_string(), json, page, format!("{report:?}")] {
        assert!(!rendering.contains(SECRET), "{rendering}");
    }
}

#[test]
fn an_overridden_settings_type_is_in_the_report_as_not_read() {
    let app = builder()
        .override_value("mailSettings", MailSettings { port: 1 })
        .build()
        .unwrap();
    let report = app.settings_report();
    let mail = report
        .settings
        .iter()
        .find(|s| s.key == "mailSettings")
        .unwrap();
    assert!(mail.overridden && mail.fields.is_empty(), "{report:?}");
    assert!(
        report
            .to_string()
            .contains("mailSettings\n  (overridden: not read)\n")
    );
}
