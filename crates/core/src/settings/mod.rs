//! Settings: typed values read at `build()` from defaults, a TOML file and the environment
//! (each overriding the one before), every problem of every settings type in the same
//! [`BuildError`](crate::BuildError) as the graph's, and secrets never shown.
//!
//! One concept per file: the [`Settings`] trait and [`FieldSpec`] here; [`Reader`] (`reader.rs`)
//! reads one field at a time through the text deserializer (`de.rs`); [`Secret`] (`secret.rs`);
//! [`Sources`] and the snapshot `build()` takes of them (`sources.rs`, the file in `file.rs`);
//! [`SettingsProvider`] and the read hook the builder calls (`provider.rs`); the pass that reads
//! every settings provider and looks for unknown variables (`read.rs`, `unknown.rs`), over the
//! variable names the fields read (`variables.rs`).

mod de;
mod file;
mod provider;
pub(crate) mod read;
mod reader;
mod report;
mod secret;
mod source;
mod sources;
#[cfg(test)]
mod tests;
mod unknown;
mod variables;

pub use bytesize::ByteSize;
pub use provider::{SettingsHook, SettingsProvider};
pub use reader::Reader;
pub use report::{SettingsEntry, SettingsReport};
pub use secret::Secret;
pub use source::{ExplainSetting, SettingSource, UnknownSetting};
pub use sources::Sources;

/// A settings type: a struct whose fields are read at `build()` from defaults, a TOML file and
/// the environment, and which is a provider of its key ([`provider`](Self::provider)).
///
/// `#[derive(Settings)]` writes this impl; by hand it is a few lines, one [`Reader`] call per
/// field (each records its own problem and returns `None`, so every field is read even after
/// one failed):
///
/// ```
/// use std::time::Duration;
/// use green_tea::Container;
/// use green_tea::settings::{FieldSpec, Reader, Secret, Settings, Sources};
///
/// struct BillingSettings {
///     url: String,
///     timeout: Duration,
///     token: Secret<String>,
/// }
///
/// impl Settings for BillingSettings {
///     const KEY: &'static str = "billingSettings";
///     const PREFIX: &'static str = "BILLING";
///
///     fn fields() -> Vec<FieldSpec> {
///         vec![
///             FieldSpec::new("url", "String"),
///             FieldSpec::new("timeout", "Duration").default("2s"),
///             FieldSpec::new("token", "Secret<String>").secret(),
///         ]
///     }
///
///     fn read(reader: &mut Reader<'_>) -> Option<Self> {
///         let url = reader.value("url", None);
///         let timeout = reader.value("timeout", Some("2s"));
///         let token = reader.secret("token", None);
///         Some(BillingSettings { url: url?, timeout: timeout?, token: token? })
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .settings(Sources::from_env_map([
///         ("BILLING_URL", "http://127.0.0.1:3001"),
///         ("BILLING_TOKEN", "s3cr3t"),
///     ]))
///     .provider(BillingSettings::provider())
///     .build()
///     .unwrap();
/// let settings = container.get::<BillingSettings>("billingSettings").await.unwrap();
/// assert_eq!(settings.url, "http://127.0.0.1:3001");
/// assert_eq!(settings.timeout, Duration::from_secs(2));
/// assert_eq!(settings.token.expose(), "s3cr3t");
/// assert_eq!(format!("{:?}", settings.token), "***");
/// # container.close().await.unwrap(); }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a green-tea settings type",
    note = "put `#[derive(Settings)]` with `#[settings(provides = \"key\", prefix = \"PREFIX\")]` on the struct, or implement `Settings` by hand"
)]
pub trait Settings: Sized + Send + Sync + 'static {
    /// The key it provides (`billingSettings`); `""` for a type that is only nested in another.
    const KEY: &'static str;
    /// Its prefix (`BILLING`): its variables are `BILLING_<FIELD>`, its file table `[billing]`;
    /// `""` for a type that is only nested in another, or that only modules register (a
    /// module's name is its prefix there; at the app's root it is a build problem, GT0022).
    const PREFIX: &'static str;

    /// Its fields, for the unknown-variable check, `explain` and the docs.
    fn fields() -> Vec<FieldSpec>;

    /// Reads every field, each problem recorded in `reader`; `None` if any failed.
    fn read(reader: &mut Reader<'_>) -> Option<Self>;

    /// Checks the values together, once every field was read (GT0018 on `Err`).
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }

    /// The provider of [`KEY`](Self::KEY): `.provider(BillingSettings::provider())`.
    #[track_caller]
    fn provider() -> SettingsProvider<Self> {
        SettingsProvider::new()
    }
}

/// One field of a settings type, as [`Settings::fields`] describes it.
///
/// ```
/// use green_tea::settings::FieldSpec;
/// let timeout = FieldSpec::new("timeout", "Duration").default("2s");
/// assert_eq!(timeout.default, Some("2s"));
/// assert!(!timeout.secret && !timeout.optional);
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct FieldSpec {
    /// The Rust field name (`timeout`): the variable `PREFIX_TIMEOUT`, the file key `timeout`.
    pub name: &'static str,
    /// The type, for messages: `Duration`, `u32`, `String`.
    pub type_name: &'static str,
    /// Whether its value is never shown (`Secret<T>`, or `#[settings(secret)]`).
    pub secret: bool,
    /// The default, as text (`"2s"`), read like a variable's value.
    pub default: Option<&'static str>,
    /// Whether no source may set it (`Option<T>`).
    pub optional: bool,
    /// For a nested settings struct, its fields.
    pub nested: Option<fn() -> Vec<FieldSpec>>,
}

impl FieldSpec {
    /// A required field `name` of type `type_name`, not secret, without a default.
    pub const fn new(name: &'static str, type_name: &'static str) -> Self {
        FieldSpec {
            name,
            type_name,
            secret: false,
            default: None,
            optional: false,
            nested: None,
        }
    }

    /// Makes it secret: `***` wherever it would be shown.
    pub const fn secret(mut self) -> Self {
        self.secret = true;
        self
    }

    /// Gives it a default, as text (`"2s"`).
    pub const fn default(mut self, text: &'static str) -> Self {
        self.default = Some(text);
        self
    }

    /// Makes it optional (`Option<T>`).
    pub const fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Makes it a nested settings struct with these fields.
    pub const fn nested(mut self, fields: fn() -> Vec<FieldSpec>) -> Self {
        self.nested = Some(fields);
        self
    }
}

/// `BILLING_BREAKER_THRESHOLD` for the prefix `BILLING` and the path `breaker.threshold`.
pub(crate) fn variable_name(prefix: &str, path: &[&str]) -> String {
    let mut name = prefix.to_owned();
    for part in path {
        if !name.is_empty() {
            name.push('_');
        }
        name.push_str(&part.to_uppercase());
    }
    name
}

/// `billing.breaker` for the prefix `BILLING` and the path `breaker` (a nested table).
pub(crate) fn table_name(prefix: &str, path: &[&str]) -> String {
    let mut name = prefix.to_lowercase();
    for part in path {
        name.push('.');
        name.push_str(part);
    }
    name
}

/// The prefix a settings type reads under in the module at `path`: the module's path in upper
/// case, each `::` and any other character a variable name does not hold as `_`
/// (`billing_eu` -> `BILLING_EU`, `shop::billing` -> `SHOP_BILLING`). One module registered
/// twice reads two sets of variables.
pub(crate) fn module_prefix(path: &str) -> String {
    let mut prefix = String::with_capacity(path.len());
    for part in green_tea_key::segments(path) {
        if !prefix.is_empty() {
            prefix.push('_');
        }
        prefix.extend(part.chars().map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => c.to_ascii_uppercase(),
            _ => '_',
        }));
    }
    prefix
}

/// A prefix for a settings type that has none, from its key, for the message that asks for
/// one: `PAYMENT` for `paymentSettings`, `SHOP_CART` for `shopCart`.
pub(crate) fn suggested_prefix(key: &str) -> String {
    let stem = key
        .strip_suffix("Settings")
        .filter(|s| !s.is_empty())
        .unwrap_or(key);
    let mut prefix = String::with_capacity(stem.len() + 2);
    for c in stem.chars() {
        if c.is_ascii_uppercase() && !prefix.is_empty() && !prefix.ends_with('_') {
            prefix.push('_');
        }
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => prefix.push(c.to_ascii_uppercase()),
            _ if !prefix.is_empty() && !prefix.ends_with('_') => prefix.push('_'),
            _ => {}
        }
    }
    let prefix = prefix.trim_end_matches('_');
    if prefix.is_empty() {
        "APP".to_owned()
    } else {
        prefix.to_owned()
    }
}
