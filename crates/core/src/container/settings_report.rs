//! `Container::settings_report`: what the container's settings types read, in one report;
//! and every field of its settings types by the name a variable (or the file) gives it, what
//! the lockfile and `explain_reload` read.

use super::{Container, Inner};
use crate::error::NodeKind;
use crate::ids::ProviderId;
use crate::settings::variables::flat_fields;
use crate::settings::{FieldSpec, SettingsEntry, SettingsReport};

/// A field of a settings type the container registers.
#[derive(Clone)]
pub(crate) struct SettingField {
    /// Its variable (`BILLING_TIMEOUT`); for a type read without a prefix, its field.
    pub(crate) name: String,
    /// Its field under its settings' key (`billingSettings.breaker.threshold`).
    pub(crate) field: String,
    /// Its spec, marked `reload` when a field holding it is.
    pub(crate) spec: FieldSpec,
}

impl Inner {
    /// Every settings provider's fields (those a test's override put in place excepted),
    /// nested ones flattened.
    pub(crate) fn settings_fields(&self) -> impl Iterator<Item = (ProviderId, Vec<SettingField>)> {
        (self.settings_nodes())
            .filter(|settings| settings.node.kind == NodeKind::Settings)
            .map(|settings| {
                let (key, prefix) = (&settings.key, &settings.prefix);
                let fields = (flat_fields(prefix, &settings.hook.fields()).into_iter())
                    .map(|flat| {
                        let field = format!("{key}.{}", flat.path.join("."));
                        SettingField {
                            name: match prefix.is_empty() {
                                true => field.clone(),
                                false => flat.variable,
                            },
                            field,
                            spec: flat.spec,
                        }
                    })
                    .collect();
                (settings.id, fields)
            })
    }
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
        let settings = (inner.settings_nodes())
            // Settings that are off today were not needed (`explain_switches` lists them).
            .filter(|settings| inner.is_on(settings.id))
            .map(|settings| {
                let key = settings.key;
                let switches = inner
                    .shape
                    .iter()
                    .flat_map(|shape| &shape.switches.table)
                    .filter(|s| s.settings == key)
                    .map(|s| match s.reads.is_empty() {
                        true => format!("`{}`", s.name),
                        false => format!("`{}` ({})", s.name, s.reads.join(", ")),
                    })
                    .collect();
                SettingsEntry {
                    key: key.to_string(),
                    location: settings.node.descriptor.location.to_string(),
                    fields: settings.hook.explain().unwrap_or_default(),
                    // An override of its key took its place: it was not read.
                    overridden: settings.overridden,
                    switches,
                }
            })
            .collect();
        SettingsReport { settings }
    }
}
