//! Where a setting's value came from, what `explain` shows of each field, and an unknown
//! variable or file key: the data the problems, the warnings and `explain` share.

use std::fmt;

use serde::Serialize;

/// Where a setting's value (or a problem with one) came from.
///
/// ```
/// use green_tea::settings::SettingSource;
/// assert_eq!(SettingSource::Env("BILLING_TIMEOUT".into()).to_string(), "env BILLING_TIMEOUT");
/// let file = SettingSource::File { path: "config.toml".into(), line: 3, column: 11 };
/// assert_eq!(file.to_string(), "config.toml:3:11");
/// assert_eq!(SettingSource::Default.to_string(), "default");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SettingSource {
    /// An environment variable, by name.
    Env(String),
    /// The settings file, at a line and column (both from 1; 0 when the file as a whole is
    /// meant, as for one that does not exist).
    File {
        /// The file's path as given (or the name of an inline text).
        path: String,
        /// The line, from 1.
        line: u32,
        /// The column, from 1.
        column: u32,
    },
    /// The field's default.
    Default,
}

impl SettingSource {
    /// As `explain` shows it: `default`, `config.toml:3` (the line), `env BILLING_TIMEOUT`.
    pub fn short(&self) -> String {
        match self {
            SettingSource::File { path, line, .. } => format!("{path}:{line}"),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for SettingSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingSource::Env(name) => write!(f, "env {name}"),
            SettingSource::File {
                path,
                line: 0,
                column: _,
            } => f.write_str(path),
            SettingSource::File { path, line, column } => write!(f, "{path}:{line}:{column}"),
            SettingSource::Default => f.write_str("default"),
        }
    }
}

/// One field of a settings value, as `explain` shows it: its value (`***` for a secret) and
/// where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ExplainSetting {
    /// The field, dotted for a nested one (`breaker.threshold`).
    pub field: String,
    /// The value as its source wrote it (`2s`, `http://127.0.0.1:3001`, `3`), `***` for a
    /// secret, `None` (`(none)` in text) for an optional field no source sets.
    pub value: String,
    /// `default`, `config.toml:3`, `env BILLING_TIMEOUT`, or `unset` for an optional field no
    /// source sets.
    pub source: String,
    /// Whether the field is marked `#[settings(reload)]` (left out of the JSON when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reload: bool,
    /// A hash of the value as its source wrote it (a secret's too), never shown: how a reload
    /// tells a changed field from an unchanged one without keeping a secret's text.
    #[serde(skip)]
    pub(crate) digest: u64,
}

impl ExplainSetting {
    /// `timeout = 5s (env BILLING_TIMEOUT)`, and `; reloadable` inside the parentheses for a
    /// field marked `reload`: a row of the settings report and of `explain`.
    pub fn line(&self) -> String {
        let reload = if self.reload { "; reloadable" } else { "" };
        format!("{} = {} ({}{reload})", self.field, self.value, self.source)
    }
}

/// A variable under a settings type's prefix, or a key in its file table, that no field
/// reads: a warning by default, an error (GT0019) with [`Sources::strict`](super::Sources::strict).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownSetting {
    /// The variable, or the key's place in the file.
    pub source: SettingSource,
    /// The variable's name (`BILLING_URLL`), or the key's dotted name in the file
    /// (`billing.urll`).
    pub name: String,
    /// The closest name a field reads, if one is close (`BILLING_URL`).
    pub suggestion: Option<String>,
    /// The prefix it is under (`BILLING_`), or the file table (`[billing]`).
    pub prefix: String,
}

impl fmt::Display for UnknownSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            SettingSource::Env(_) => write!(
                f,
                "the variable `{}` is under the settings prefix `{}`, but no field reads it",
                self.name, self.prefix
            )?,
            source => write!(
                f,
                "the key `{}` ({source}) is in the settings table `{}`, but no field reads it",
                self.name, self.prefix
            )?,
        }
        if let Some(suggestion) = &self.suggestion {
            write!(f, "\n  help: did you mean `{suggestion}`?")?;
        }
        Ok(())
    }
}
