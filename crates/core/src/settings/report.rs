//! The whole app's settings in one report: every settings key, each field's value (`***` for a
//! secret) and where it came from, like Spring Boot's `configprops`.

use std::fmt;

use serde::Serialize;

use super::ExplainSetting;
use crate::container::Container;

/// Every settings type of a container, in registration order: what `explain` of each
/// settings key shows, in one place. Secrets are `***`; nothing is read again.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct SettingsReport {
    /// One entry per settings type.
    pub settings: Vec<SettingsEntry>,
}

/// One settings type in a [`SettingsReport`].
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct SettingsEntry {
    /// Its key, qualified in a module (`billing_eu::billingSettings`).
    pub key: String,
    /// Where it was declared, `file:line`.
    pub location: String,
    /// Each field's value and source; empty when a test's override replaced it (nothing was
    /// read).
    pub fields: Vec<ExplainSetting>,
    /// Whether a test's override replaced it.
    pub overridden: bool,
}

impl Container {
    /// Every settings type's fields, values and sources, in one report (secrets `***`).
    ///
    /// ```
    /// use green_tea::prelude::*;
    /// use green_tea::settings::Sources;
    ///
    /// #[derive(Settings, Debug)]
    /// #[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
    /// struct BillingSettings {
    ///     #[settings(default = "http://127.0.0.1:3001")]
    ///     url: String,
    /// }
    ///
    /// let app = App::builder()
    ///     .settings(Sources::from_env_map([("BILLING_URL", "http://billing.internal")]))
    ///     .provider(BillingSettings::provider())
    ///     .build()
    ///     .unwrap();
    /// let report = app.container().settings_report();
    /// assert_eq!(
    ///     report.to_string(),
    ///     "billingSettings\n  url = http://billing.internal (env BILLING_URL)\n"
    /// );
    /// ```
    pub fn settings_report(&self) -> SettingsReport {
        let inner = &self.inner;
        let settings = inner
            .providers
            .iter_enumerated()
            .filter_map(|(id, node)| {
                let hook = node.provider.settings_hook()?;
                let key = node.descriptor.provides.first()?.key.clone();
                // An override of its key took its place: it was not read.
                let overridden = inner.keys.get(&key).map(|v| v.provider()) != Some(id);
                Some(SettingsEntry {
                    key: key.to_string(),
                    location: node.descriptor.location.to_string(),
                    fields: hook.explain().unwrap_or_default(),
                    overridden,
                })
            })
            .collect();
        SettingsReport { settings }
    }
}

impl SettingsReport {
    /// The report as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the settings report is plain data")
    }
}

impl fmt::Display for SettingsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for entry in &self.settings {
            writeln!(f, "{}", entry.key)?;
            if entry.overridden {
                writeln!(f, "  (overridden: not read)")?;
            }
            for field in &entry.fields {
                writeln!(f, "  {} = {} ({})", field.field, field.value, field.source)?;
            }
        }
        Ok(())
    }
}
