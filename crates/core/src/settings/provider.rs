//! `SettingsProvider<T>`: the provider of a settings type's key, whose value `build()` reads
//! (through the hidden [`SettingsHook`]) before it checks the graph; built like a value.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use super::{ExplainSetting, FieldSpec, Reader, Settings};
use crate::descriptor::Descriptor;
use crate::error::BoxError;
use crate::key::Location;
use crate::provider::Provider;
use crate::value::{Needs, Provided};

/// The provider of a settings type's key ([`Settings::KEY`], as `T`): register it with
/// `.provider(T::provider())`. Its value is read at `build()` (every problem in the same
/// `BuildError` as the graph's), so building it later costs an `Arc` clone, and `explain`
/// shows each field's value and source. A settings type that is only nested has no provider.
pub struct SettingsProvider<T: Settings> {
    location: Location,
    read: OnceLock<Read<T>>,
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
            read: OnceLock::new(),
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
}

impl<T: Settings> Provider for SettingsProvider<T> {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new(green_tea_key::short_type_name_of::<T>())
            .provides::<T>(T::KEY)
            .at(self.location)
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
}

/// What `build()` calls on a settings provider: its prefix and fields, and the read itself.
/// Not a public API: [`Provider::settings_hook`] returns it.
#[doc(hidden)]
pub trait SettingsHook: Send + Sync {
    /// [`Settings::KEY`].
    fn key(&self) -> &'static str;
    /// [`Settings::PREFIX`].
    fn prefix(&self) -> &'static str;
    /// [`Settings::fields`].
    fn fields(&self) -> Vec<FieldSpec>;
    /// Reads and validates the value, and keeps it; the problems stay in `reader`.
    fn read(&self, reader: &mut Reader<'_>);
    /// Each field's value and source, once read.
    fn explain(&self) -> Option<Vec<ExplainSetting>>;
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
        if !reader.check_table() {
            return;
        }
        let Some(value) = T::read(reader) else {
            return;
        };
        if let Err(reason) = value.validate() {
            reader.reject(reason);
            return;
        }
        let rows = std::mem::take(&mut reader.rows);
        let _ = self.read.set(Read {
            value: Arc::new(value),
            rows,
        });
    }

    fn explain(&self) -> Option<Vec<ExplainSetting>> {
        self.read.get().map(|r| r.rows.clone())
    }
}
