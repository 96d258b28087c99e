//! Settings: typed values read at `build()` from defaults, a TOML file and the environment
//! (each overriding the one before), every problem of every settings type in the same
//! [`BuildError`](crate::BuildError) as the graph's, and secrets never shown.
//!
//! One concept per file, this one only declaring them: [`FieldSpec`] and the names a field is
//! read under (`field.rs`); [`Reader`] (`reader.rs`) reads one field at a time through the text
//! deserializer (`de.rs`); [`Secret`] (`secret.rs`); [`Sources`] and the snapshot `build()`
//! takes of them (`sources.rs`, the file in `file.rs`); the [`Settings`] trait with
//! [`SettingsProvider`] (`provider.rs`), and the read hook the builder calls (`hook.rs`); the
//! pass that reads every settings provider and looks for unknown variables (`read.rs`,
//! `unknown.rs`), over the variable names the fields read (`variables.rs`); what a built
//! container reports of them (`report.rs`).

mod de;
mod field;
mod file;
mod hook;
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
pub(crate) mod variables;

pub use bytesize::ByteSize;
pub use field::FieldSpec;
pub(crate) use field::module_prefix;
pub use hook::{Reread, SettingsHook};
pub use provider::{Settings, SettingsProvider};
pub use reader::Reader;
pub use report::{SettingsEntry, SettingsReport};
pub use secret::Secret;
pub use source::{ExplainSetting, SettingSource, UnknownSetting};
pub use sources::Sources;
