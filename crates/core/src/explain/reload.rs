//! `Container::explain_reload`: what a change of one setting touches. Whether it is
//! reloadable (its field marked `#[settings(reload)]`, and read by no switch: a switch's
//! outcome is the graph's shape), which providers a change would build anew (the settings'
//! own and every provider that depends on them, decorators and collections included), and
//! which workers need one of those. Builds nothing.

use std::fmt;

use serde::Serialize;

use crate::container::Container;
use crate::container::settings_report::SettingField;
use crate::ids::ProviderId;
use crate::reload::quoted;
use green_tea_key::closest;

/// What a change of one setting touches, as [`Container::explain_reload`] says.
///
/// An app's `reload()` applies a change of a reloadable setting by building anew exactly
/// [`rebuilds`](Self::rebuilds), beside the providers that serve, and restarting
/// [`workers`](Self::workers) on them.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainReload {
    /// The variable that sets it (`BILLING_TIMEOUT`).
    pub variable: String,
    /// The field, under its settings' key (`billingSettings.timeout`).
    pub field: String,
    /// Whether a change of it may be applied without a restart: its field is marked
    /// `reload` and no switch reads it.
    pub reloadable: bool,
    /// Why a change needs a restart, one line each (empty when it is reloadable).
    pub restart_because: Vec<String>,
    /// What a change builds anew, in build order: the settings' provider first, then every
    /// provider that depends on it, directly or not (decorators and collections too). Every
    /// other provider is untouched.
    pub rebuilds: Vec<String>,
    /// The workers that need one of [`rebuilds`](Self::rebuilds), by name.
    pub workers: Vec<String>,
    /// [`rebuilds`](Self::rebuilds), as the graph numbers them.
    #[serde(skip)]
    pub(crate) rebuilt: Vec<ProviderId>,
}

/// GT0104: `explain_reload` was asked about a setting no settings type reads.
#[derive(Clone, thiserror::Error)]
#[error("{}", unknown_text(.name, .suggestion, .settings))]
#[non_exhaustive]
pub struct UnknownSettingName {
    /// The name asked about.
    pub name: String,
    /// The closest variable a field reads, if one is close.
    pub suggestion: Option<String>,
    /// Every variable a field reads, in registration order.
    pub settings: Vec<String>,
}

/// As `Display`, so that `?` in a `main` that returns a `Result` prints the message.
impl fmt::Debug for UnknownSettingName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl UnknownSettingName {
    /// The error code, `"GT0104"`, with a page `docs/errors/GT0104.md`.
    pub fn code(&self) -> &'static str {
        "GT0104"
    }
}

fn unknown_text(name: &str, suggestion: &Option<String>, settings: &[String]) -> String {
    if settings.is_empty() {
        return format!(
            "error[GT0104]: no setting `{name}`: nothing registers a settings type \
             (`.provider(T::provider())`)"
        );
    }
    let mut text = format!("error[GT0104]: no setting `{name}`");
    match suggestion {
        Some(near) => text.push_str(&format!("; did you mean `{near}`? ")),
        None => text.push_str("; "),
    }
    text.push_str(&format!("settings: {}", settings.join(", ")));
    text
}

impl Container {
    /// What a change of `setting` touches: whether it may be applied without a restart, the
    /// providers a change builds anew (in build order) and the workers that need them.
    /// `setting` is its variable (`BILLING_TIMEOUT`) or its field under its settings' key
    /// (`billingSettings.timeout`, `billingSettings.breaker.threshold`). A name no field
    /// reads is an error naming the closest one.
    ///
    /// ```
    /// use std::time::Duration;
    /// use green_tea::settings::{Settings, Sources};
    /// use green_tea::{Container, ProviderFn};
    ///
    /// #[derive(Settings)]
    /// #[settings(provides = "billingSettings", prefix = "BILLING", discover = false)]
    /// struct BillingSettings {
    ///     #[settings(default = "http://127.0.0.1:3001")]
    ///     url: String,
    ///     /// A change of it may be applied without a restart.
    ///     #[settings(default = "2s", reload)]
    ///     timeout: Duration,
    /// }
    ///
    /// let container = Container::builder()
    ///     .settings(Sources::from_env_map([("BILLING_TIMEOUT", "5s")]))
    ///     .provider(BillingSettings::provider())
    ///     .provider(ProviderFn::new("billing", |_| async { Ok::<_, green_tea::BoxError>(1_u8) })
    ///         .needs::<BillingSettings>("billingSettings"))
    ///     .value("db", 0_u16)
    ///     .build()
    ///     .unwrap();
    /// let timeout = container.explain_reload("BILLING_TIMEOUT").unwrap();
    /// assert!(timeout.reloadable);
    /// assert_eq!(timeout.rebuilds, ["BillingSettings", "billing"]); // not `db`
    /// let url = container.explain_reload("billingSettings.url").unwrap();
    /// assert_eq!(url.restart_because, ["`billingSettings.url` is not marked `reload`"]);
    /// assert_eq!(
    ///     container.explain_reload("BILLING_TIMEOUTS").unwrap_err().to_string(),
    ///     "error[GT0104]: no setting `BILLING_TIMEOUTS`; did you mean `BILLING_TIMEOUT`? \
    ///      settings: BILLING_URL, BILLING_TIMEOUT"
    /// );
    /// ```
    pub fn explain_reload(&self, setting: &str) -> Result<ExplainReload, UnknownSettingName> {
        let mut every = Vec::new();
        for (id, fields) in self.inner.settings_fields() {
            for field in fields {
                if field.name == setting || field.field == setting {
                    return Ok(self.reload_of(id, field));
                }
                every.push(field.name);
            }
        }
        Err(UnknownSettingName {
            name: setting.to_owned(),
            suggestion: closest(setting, every.iter(), String::as_str).cloned(),
            settings: every,
        })
    }

    /// What a change of `field` (of the settings provider `id`) touches.
    pub(crate) fn reload_of(&self, id: ProviderId, field: SettingField) -> ExplainReload {
        let inner = &*self.inner;
        let key = inner.providers[id].descriptor.provides[0].key.clone();
        let mut restart_because = Vec::new();
        let path = &field.field;
        if !field.spec.reload {
            restart_because.push(format!("`{path}` is not marked `reload`"));
        }
        // A switch that names no field reads the whole type; one that names fields names
        // them at the top (`breaker`, not `breaker.threshold`).
        let top = path[key.as_str().len() + 1..]
            .split('.')
            .next()
            .unwrap_or_default();
        if let Some(shape) = &inner.shape {
            for switch in &shape.switches.table {
                if switch.settings == key
                    && (switch.reads.is_empty() || switch.reads.contains(&top))
                {
                    restart_because.push(format!(
                        "the switch `{}` reads it: its outcome decides the graph's shape",
                        switch.name
                    ));
                }
            }
        }

        // The settings' provider and everything that depends on it, on today.
        let reached = inner.reached_from([id]);
        let rebuilt = inner.on_in_build_order(&reached);
        let workers = (inner.workers_needing(&reached).into_iter())
            .map(|at| inner.workers.nodes[at].name())
            .collect();
        ExplainReload {
            variable: field.name,
            field: field.field,
            reloadable: restart_because.is_empty(),
            restart_because,
            rebuilds: (rebuilt.iter())
                .map(|&p| inner.providers[p].descriptor.qualified_name().into_owned())
                .collect(),
            workers,
            rebuilt,
        }
    }
}

impl ExplainReload {
    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }
}

impl fmt::Display for ExplainReload {
    /// ```text
    /// `BILLING_TIMEOUT` (`billingSettings.timeout`): reloadable
    ///   a change builds anew: `BillingSettings` → `billingApi` → `billing`
    ///   workers that need them: none
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (`{}`): ", self.variable, self.field)?;
        if self.reloadable {
            f.write_str("reloadable")?;
        } else {
            f.write_str("needs a restart")?;
            for reason in &self.restart_because {
                write!(f, "\n  {reason}")?;
            }
        }
        let rebuilds = quoted(&self.rebuilds, " → ", "none");
        write!(f, "\n  a change builds anew: {rebuilds}")?;
        let workers = quoted(&self.workers, ", ", "none");
        write!(f, "\n  workers that need them: {workers}")
    }
}
