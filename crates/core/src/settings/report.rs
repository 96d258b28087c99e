//! The whole app's settings in one report: every settings key, each field's value (`***` for a
//! secret) and where it came from, like Spring Boot's `configprops`.

use std::fmt;

use serde::Serialize;

use super::ExplainSetting;

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
    /// The switches decided from it, each with the fields it reads (``cacheOn` (cache)``);
    /// left out of the JSON when none is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches: Vec<String>,
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
                writeln!(f, "  {}", field.line())?;
            }
            for switch in &entry.switches {
                writeln!(f, "  decides {switch}")?;
            }
        }
        Ok(())
    }
}
