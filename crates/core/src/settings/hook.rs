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
    /// Each field's value and source, once read.
    fn explain(&self) -> Option<Vec<ExplainSetting>>;
}
