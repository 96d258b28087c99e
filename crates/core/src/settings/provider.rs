//! A settings type: the [`Settings`] trait, [`SettingsProvider<T>`], the provider of its key,
//! whose value `build()` reads (through the hidden [`SettingsHook`]) before it checks the graph,
//! built like a value; and [`Reader::nested`], the read of a settings type inside another.
//! The trait and its provider name each other, so they stand together.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use super::hook::Reread;
use super::{ExplainSetting, FieldSpec, Reader, SettingsHook};
use crate::descriptor::Descriptor;
use crate::error::BoxError;
use crate::key::Location;
use crate::provider::Provider;
use crate::value::{Needs, Provided};

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

impl Reader<'_> {
    /// A nested settings struct: its fields under this one's (`BILLING_BREAKER_THRESHOLD`,
    /// `[billing.breaker] threshold`), its [`validate`](Settings::validate) run after them.
    pub fn nested<S: Settings>(&mut self, field: &'static str) -> Option<S> {
        self.read_nested(field, S::fields(), S::read, S::validate)
    }
}

/// The provider of a settings type's key ([`Settings::KEY`], as `T`): register it with
/// `.provider(T::provider())`. Its value is read at `build()` (every problem in the same
/// `BuildError` as the graph's), so building it later costs an `Arc` clone, and `explain`
/// shows each field's value and source. A settings type that is only nested has no provider.
pub struct SettingsProvider<T: Settings> {
    location: Location,
    /// The conditions it is on under (`#[settings(when = "..")]`).
    when: Vec<std::borrow::Cow<'static, str>>,
    read: OnceLock<Read<T>>,
    /// The rows of the last reload that took effect, which `explain` shows from then on (the
    /// value itself is in the slots of the generations that serve it).
    reloaded: std::sync::Mutex<Option<Vec<ExplainSetting>>>,
    _type: PhantomData<fn() -> T>,
}

/// What reading found: the value, and what `explain` shows of each field.
struct Read<T> {
    value: Arc<T>,
    rows: Vec<ExplainSetting>,
}

impl<T: Settings> std::fmt::Debug for SettingsProvider<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SettingsProvider")
            .field("key", &T::KEY)
            .field("prefix", &T::PREFIX)
            .field("read", &self.read.get().is_some())
            .finish_non_exhaustive()
    }
}

impl<T: Settings> Default for SettingsProvider<T> {
    #[track_caller]
    fn default() -> Self {
        SettingsProvider::new()
    }
}

impl<T: Settings> SettingsProvider<T> {
    /// The provider of `T`, declared where this is called.
    #[track_caller]
    pub fn new() -> Self {
        SettingsProvider {
            location: Location::caller(),
            when: Vec::new(),
            read: OnceLock::new(),
            reloaded: std::sync::Mutex::new(None),
            _type: PhantomData,
        }
    }

    /// The value, once `build()` read it.
    #[cfg(test)]
    pub(crate) fn value(&self) -> Option<&Arc<T>> {
        self.read.get().map(|r| &r.value)
    }

    /// Declared at `location` (the derive passes the struct's).
    pub fn at(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    /// Puts it under the condition `condition` (`cacheOn`, `gateway = stripe`): read, and part
    /// of the graph, only where it holds; see [`Switch`](crate::switches::Switch).
    pub fn when(mut self, condition: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        self.when.push(condition.into());
        self
    }
}

impl<T: Settings> Provider for SettingsProvider<T> {
    fn descriptor(&self) -> Descriptor {
        let mut descriptor = Descriptor::new(green_tea_key::short_type_name_of::<T>())
            .provides::<T>(T::KEY)
            .at(self.location);
        descriptor.when.clone_from(&self.when);
        descriptor
    }

    async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
        match self.read.get() {
            Some(read) => Ok(Provided::new().with_arc(Arc::clone(&read.value))),
            None => Err(format!(
                "the settings `{}` were not read at build(): register them on the builder that \
                 builds them",
                T::KEY
            )
            .into()),
        }
    }

    fn settings_hook(&self) -> Option<&dyn SettingsHook> {
        Some(self)
    }

    fn ready_value(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.read
            .get()
            .map(|r| &*r.value as &(dyn std::any::Any + Send + Sync))
    }
}

impl<T: Settings> SettingsHook for SettingsProvider<T> {
    fn key(&self) -> &'static str {
        T::KEY
    }

    fn prefix(&self) -> &'static str {
        T::PREFIX
    }

    fn fields(&self) -> Vec<FieldSpec> {
        T::fields()
    }

    fn read(&self, reader: &mut Reader<'_>) {
        if let Some(read) = read_value::<T>(reader) {
            let _ = self.read.set(read);
        }
    }

    fn reread(&self, reader: &mut Reader<'_>) -> Option<Reread> {
        let read = read_value::<T>(reader)?;
        Some(Reread {
            provided: Provided::new().with_arc(read.value),
            rows: read.rows,
        })
    }

    fn adopt(&self, rows: Vec<ExplainSetting>) {
        *self
            .reloaded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(rows);
    }

    fn explain(&self) -> Option<Vec<ExplainSetting>> {
        let reloaded = self
            .reloaded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        reloaded
            .clone()
            .or_else(|| self.read.get().map(|r| r.rows.clone()))
    }
}

/// Reads and validates a `T`, each row marked as its field's `reload` says; `None` when a
/// problem was found (it stays in `reader`).
fn read_value<T: Settings>(reader: &mut Reader<'_>) -> Option<Read<T>> {
    if !reader.check_table() {
        return None;
    }
    let value = T::read(reader)?;
    if let Err(reason) = value.validate() {
        reader.reject(reason);
        return None;
    }
    let mut rows = std::mem::take(&mut reader.rows);
    // Each row of a field marked `reload` (or held by one) says so.
    let marked: Vec<String> = (super::variables::flat_fields("", &T::fields()).into_iter())
        .filter(|field| field.spec.reload)
        .map(|field| field.path.join("."))
        .collect();
    for row in &mut rows {
        row.reload = marked.contains(&row.field);
    }
    Some(Read {
        value: Arc::new(value),
        rows,
    })
}
