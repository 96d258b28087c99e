//! `SettingsHook`: what `build()` calls on a settings provider, whatever its type: its prefix
//! and fields, the read itself, and what `explain` shows once read.

use super::{ExplainSetting, FieldSpec, Reader};

/// What `build()` calls on a settings provider: its prefix and fields, and the read itself.
/// Not a public API: [`Provider::settings_hook`] returns it.
#[doc(hidden)]
pub trait SettingsHook: Send + Sync {
    /// [`Settings::KEY`](super::Settings::KEY).
    fn key(&self) -> &'static str;
    /// [`Settings::PREFIX`](super::Settings::PREFIX).
    fn prefix(&self) -> &'static str;
    /// [`Settings::fields`](super::Settings::fields).
    fn fields(&self) -> Vec<FieldSpec>;
    /// Reads and validates the value, and keeps it; the problems stay in `reader`.
    fn read(&self, reader: &mut Reader<'_>);
    /// Reads and validates the value again, for a reload, without keeping it: `None` when a
    /// problem was found (it stays in `reader`).
    fn reread(&self, reader: &mut Reader<'_>) -> Option<Reread>;
    /// The rows [`explain`](Self::explain) shows from now on: a reload's, once its generation
    /// serves.
    fn adopt(&self, rows: Vec<ExplainSetting>);
    /// Each field's value and source, as last read (by `build()`, or by the last reload
    /// that took effect).
    fn explain(&self) -> Option<Vec<ExplainSetting>>;
}

/// A settings type read again for a reload: its value, as a built slot holds it, and its rows.
#[doc(hidden)]
#[derive(Debug)]
pub struct Reread {
    pub(crate) provided: crate::value::Provided,
    pub(crate) rows: Vec<ExplainSetting>,
}
