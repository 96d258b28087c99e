//! `Reader`: reads one field at a time from the snapshot of the sources (the environment over
//! the file over the default), records every problem, and what `explain` shows of each value.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;

use serde::de::DeserializeOwned;
use toml::de::DeValue;

use super::de::{DeError, Raw, from_raw};
use super::field::{FieldSpec, table_name, variable_name};
use super::file::{SettingsFile, TableAt};
use super::variables::one_edit_away;
use super::{ExplainSetting, Secret, SettingSource};
use crate::error::Problem;
use crate::key::Key;

/// The sources as `build()` read them, shared by every settings type.
pub(crate) struct Snapshot<'t> {
    pub(crate) env: &'t BTreeMap<String, Result<String, OsString>>,
    pub(crate) file: Option<SettingsFile<'t>>,
    /// A file was named but could not be read or parsed: a setting missing otherwise may be
    /// in it, so only the file's problem is reported.
    pub(crate) file_failed: bool,
    /// Every variable a field reads, and those the sources read themselves (the one that
    /// names the file): never unknown, never offered for a missing setting.
    pub(crate) known: BTreeSet<String>,
}

impl Snapshot<'_> {
    /// A set variable that no field reads, one edit from `variable`: the one most likely set
    /// for it by mistake (`BILING_URL` for `BILLING_URL`), the first by name if several are.
    fn set_for(&self, variable: &str) -> Option<String> {
        self.env
            .keys()
            .find(|name| !self.known.contains(*name) && one_edit_away(variable, name))
            .cloned()
    }
}

/// Reads the fields of one settings type: [`Settings::read`](super::Settings::read) calls one
/// method per field. Each method returns `None` after recording its problem, so that a
/// settings type reads every field (and reports every problem) before it gives up.
pub struct Reader<'a> {
    snapshot: &'a Snapshot<'a>,
    /// The settings key every problem names.
    settings: Key,
    /// Its prefix: the type's (`BILLING`), or its module's (`BILLING_EU`).
    prefix: &'a str,
    /// The nested fields from the settings type to the struct being read.
    path: Vec<&'static str>,
    /// The fields of the struct being read.
    fields: Vec<FieldSpec>,
    pub(crate) problems: Vec<Problem>,
    pub(crate) rows: Vec<ExplainSetting>,
}

impl std::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("settings", &self.settings)
            .field("prefix", &self.prefix)
            .field("path", &self.path)
            .field("problems", &self.problems.len())
            .finish_non_exhaustive()
    }
}

/// Where a field's value was found.
enum Found<'a> {
    Env(&'a str, &'a Result<String, OsString>),
    File(&'a toml::Spanned<DeValue<'a>>),
    Default(&'static str),
    Nowhere,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(
        snapshot: &'a Snapshot<'a>,
        settings: Key,
        prefix: &'a str,
        fields: Vec<FieldSpec>,
    ) -> Self {
        Reader {
            snapshot,
            settings,
            prefix,
            path: Vec::new(),
            fields,
            problems: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// A required field (or one with a default, as text: `Some("2s")`).
    pub fn value<T: DeserializeOwned>(
        &mut self,
        field: &'static str,
        default: Option<&'static str>,
    ) -> Option<T> {
        let secret = self.spec(field).is_some_and(|s| s.secret);
        self.read(field, default, secret, false)
            .map(|v| v.expect("a required field is read or missing"))
    }

    /// An optional field: `Some(None)` when no source sets it.
    pub fn optional<T: DeserializeOwned>(&mut self, field: &'static str) -> Option<Option<T>> {
        let secret = self.spec(field).is_some_and(|s| s.secret);
        self.read(field, None, secret, true)
    }

    /// A secret field: never shown, in a problem (`***`) or in `explain`.
    pub fn secret<T: DeserializeOwned>(
        &mut self,
        field: &'static str,
        default: Option<&'static str>,
    ) -> Option<Secret<T>> {
        self.read(field, default, true, false)
            .map(|v| Secret::new(v.expect("a required field is read or missing")))
    }

    /// Reads a nested struct of `fields` under `field` (what [`Reader::nested`] does for a
    /// settings type): `read` reads its fields, `validate` checks them together.
    pub(crate) fn read_nested<S>(
        &mut self,
        field: &'static str,
        fields: Vec<FieldSpec>,
        read: fn(&mut Self) -> Option<S>,
        validate: fn(&S) -> Result<(), String>,
    ) -> Option<S> {
        self.path.push(field);
        let outer = std::mem::replace(&mut self.fields, fields);
        let table_ok = self.check_table();
        let value = read(self);
        let value = match value {
            Some(value) => match validate(&value) {
                Ok(()) => Some(value),
                Err(reason) => {
                    self.reject(format!("`{}`: {reason}", self.path.join(".")));
                    None
                }
            },
            None => None,
        };
        self.fields = outer;
        self.path.pop();
        value.filter(|_| table_ok)
    }

    /// Records a validation failure of the settings type (GT0018).
    pub(crate) fn reject(&mut self, reason: String) {
        self.problems.push(Problem::SettingRejected {
            settings: self.settings.clone(),
            reason,
        });
    }

    /// Checks that the table of the struct being read is a table where the file has it;
    /// records a problem and returns `false` when it is not.
    pub(crate) fn check_table(&mut self) -> bool {
        let Some(file) = &self.snapshot.file else {
            return true;
        };
        let table = self.table_path();
        let parts: Vec<&str> = table.iter().map(String::as_str).collect();
        if let TableAt::NotATable(span) = file.table(&parts) {
            self.problems.push(Problem::SettingInvalid {
                settings: self.settings.clone(),
                field: self.path.join("."),
                source: file.source(&span),
                expected: "a table",
                found: file.snippet(&span).to_owned(),
                reason: format!("`{}` is a table of settings", table.join(".")),
            });
            return false;
        }
        true
    }

    /// The file table of the struct being read: `["billing", "breaker"]`.
    fn table_path(&self) -> Vec<String> {
        let mut table = vec![];
        if !self.prefix.is_empty() {
            table.push(self.prefix.to_lowercase());
        }
        table.extend(self.path.iter().map(|p| (*p).to_owned()));
        table
    }

    fn spec(&self, field: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == field)
    }

    fn dotted(&self, field: &str) -> String {
        let mut parts: Vec<&str> = self.path.clone();
        parts.push(field);
        parts.join(".")
    }

    fn variable(&self, field: &'static str) -> String {
        let mut path = self.path.clone();
        path.push(field);
        variable_name(self.prefix, &path)
    }

    fn find(&self, field: &'static str, variable: &str) -> Found<'a> {
        let snapshot = self.snapshot;
        if let Some((name, value)) = snapshot.env.get_key_value(variable) {
            return Found::Env(name, value);
        }
        if let Some(file) = &snapshot.file {
            let table = self.table_path();
            let parts: Vec<&str> = table.iter().map(String::as_str).collect();
            if let TableAt::Found(table) = file.table(&parts)
                && let Some(value) = table.get(field)
            {
                return Found::File(value);
            }
        }
        Found::Nowhere
    }

    /// Reads `field`: `Some(Some(v))` found, `Some(None)` set by no source (optional only),
    /// `None` after recording a problem.
    fn read<T: DeserializeOwned>(
        &mut self,
        field: &'static str,
        default: Option<&'static str>,
        secret: bool,
        optional: bool,
    ) -> Option<Option<T>> {
        let variable = self.variable(field);
        let expected = self
            .spec(field)
            .map_or_else(green_tea_key::short_type_name_of::<T>, |s| s.type_name);
        let found = match self.find(field, &variable) {
            Found::Nowhere => default.map_or(Found::Nowhere, Found::Default),
            found => found,
        };
        let (raw, source, text) = match found {
            Found::Nowhere if optional => {
                self.row(field, "(none)".to_owned(), "unset".to_owned(), None);
                return Some(None);
            }
            Found::Nowhere => {
                if !self.snapshot.file_failed {
                    self.problems.push(Problem::SettingMissing {
                        settings: self.settings.clone(),
                        field: self.dotted(field),
                        file_key: format!("[{}] {field}", table_name(self.prefix, &self.path)),
                        similar: self.snapshot.set_for(&variable),
                        variable,
                    });
                }
                return None;
            }
            Found::Env(name, Err(bytes)) => {
                let found = if secret {
                    "***".to_owned()
                } else {
                    format!("{bytes:?}")
                };
                self.invalid(
                    field,
                    SettingSource::Env(name.to_owned()),
                    expected,
                    found,
                    "is not valid UTF-8 (it is read as it is, never with replacement characters)"
                        .to_owned(),
                );
                return None;
            }
            Found::Env(name, Ok(text)) => (
                Raw::Text(text),
                SettingSource::Env(name.to_owned()),
                text.as_str(),
            ),
            Found::File(value) => {
                let file = self.snapshot.file.as_ref().expect("a value from the file");
                let span = value.span();
                let raw = Raw::of_toml(value.get_ref());
                let text = match raw {
                    Raw::Text(text) => text,
                    Raw::Toml(_) => file.snippet(&span),
                };
                (raw, file.source(&span), text)
            }
            Found::Default(text) => (Raw::Text(text), SettingSource::Default, text),
        };
        let shown = if secret {
            "***".to_owned()
        } else {
            text.to_owned()
        };
        if let Raw::Text(t) = raw
            && t.trim().is_empty()
        {
            let reason = if secret {
                "is empty: a secret that is set must have a value".to_owned()
            } else if t.is_empty() {
                "is empty: set a value, or unset it".to_owned()
            } else {
                "is only whitespace: set a value, or unset it".to_owned()
            };
            self.invalid(field, source, expected, shown, reason);
            return None;
        }
        match from_raw::<T>(raw) {
            Ok(value) => {
                self.row(field, shown, source.short(), Some(text));
                Some(Some(value))
            }
            Err(DeError {
                message,
                content_free,
            }) => {
                let reason = if secret && !content_free {
                    format!("does not read as `{expected}`")
                } else {
                    message
                };
                self.invalid(field, source, expected, shown, reason);
                None
            }
        }
    }

    fn invalid(
        &mut self,
        field: &'static str,
        source: SettingSource,
        expected: &'static str,
        found: String,
        reason: String,
    ) {
        self.problems.push(Problem::SettingInvalid {
            settings: self.settings.clone(),
            field: self.dotted(field),
            source,
            expected,
            found,
            reason,
        });
    }

    /// The row of `field`: `value` as shown, `raw` as its source wrote it (only its hash is
    /// kept, for a reload's comparison).
    fn row(&mut self, field: &'static str, value: String, source: String, raw: Option<&str>) {
        let field = self.dotted(field);
        // Keyed once per process at random: a secret's hash cannot be matched against
        // guesses outside it.
        static KEY: std::sync::OnceLock<std::hash::RandomState> = std::sync::OnceLock::new();
        let digest = std::hash::BuildHasher::hash_one(KEY.get_or_init(Default::default), raw);
        self.rows.push(ExplainSetting {
            field,
            value,
            source,
            // Marked by the settings' hook once every field was read.
            reload: false,
            digest,
        });
    }
}
