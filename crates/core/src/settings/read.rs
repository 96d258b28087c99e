//! The pass `build()` runs before it checks the graph: load the sources once, read every
//! settings provider that no override replaces, and look for unknown variables and keys.

use super::file::SettingsFile;
use super::reader::{Reader, Snapshot};
use super::sources::{FileError, Loaded};
use super::unknown::{Claim, unknown};
use super::{SettingSource, SettingsHook, Sources, UnknownSetting};
use crate::error::Problem;
use crate::key::Key;

/// A settings provider for the pass: its hook, its key as the graph names it
/// (`billing::billingSettings` in a module), and whether an override replaces it.
pub(crate) struct ToRead<'h> {
    pub(crate) hook: &'h dyn SettingsHook,
    pub(crate) key: Key,
    /// The prefix it reads under: its type's, or, registered in a module, the module's
    /// (`billing_eu` reads `BILLING_EU_...`).
    pub(crate) prefix: String,
    pub(crate) overridden: bool,
}

/// What the pass found: problems for `build()`, and unknown settings that are warnings (with
/// [`Sources::strict`] they are problems instead).
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) problems: Vec<Problem>,
    pub(crate) warnings: Vec<UnknownSetting>,
}

/// Reads every settings provider in `providers` from `sources`.
pub(crate) fn read_all(sources: &Sources, providers: &[ToRead<'_>]) -> Outcome {
    let mut outcome = Outcome::default();
    let loaded: Loaded = sources.load();
    let mut file_failed = false;
    let file = match &loaded.file {
        None => None,
        Some(file) => match &file.text {
            Ok(text) => match SettingsFile::parse(file.name.clone(), text) {
                Ok(parsed) => Some(parsed),
                Err(errors) => {
                    file_failed = true;
                    for error in errors {
                        outcome.problems.push(file_problem(
                            SettingSource::File {
                                path: file.name.clone(),
                                line: error.line,
                                column: error.column,
                            },
                            format!("is not valid TOML: {}", error.message),
                        ));
                    }
                    None
                }
            },
            Err(error) => {
                file_failed = true;
                let named_by = file
                    .named_by
                    .as_ref()
                    .map(|v| format!(" (named by {v})"))
                    .unwrap_or_default();
                let (source, reason) = match error {
                    FileError::EmptyVariable => (
                        SettingSource::Env(file.named_by.clone().unwrap_or_default()),
                        "is empty: set it to the settings file's path, or unset it".to_owned(),
                    ),
                    FileError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        (whole_file(&file.name), format!("does not exist{named_by}"))
                    }
                    FileError::Io(e) => (
                        whole_file(&file.name),
                        format!("cannot be read{named_by}: {e}"),
                    ),
                    FileError::NotUtf8 => (
                        whole_file(&file.name),
                        format!("is not UTF-8{named_by}, as a TOML file must be"),
                    ),
                };
                outcome.problems.push(file_problem(source, reason));
                None
            }
        },
    };
    let snapshot = Snapshot {
        env: &loaded.env,
        file,
        file_failed,
    };
    for provider in providers.iter().filter(|p| !p.overridden) {
        let hook = provider.hook;
        let mut reader = Reader::new(
            &snapshot,
            provider.key.clone(),
            &provider.prefix,
            hook.fields(),
        );
        hook.read(&mut reader);
        outcome.problems.append(&mut reader.problems);
    }
    let claims: Vec<Claim<'_>> = providers
        .iter()
        .map(|p| Claim {
            prefix: &p.prefix,
            fields: p.hook.fields(),
        })
        .collect();
    let unknown = unknown(&snapshot, &claims);
    if loaded.strict {
        outcome
            .problems
            .extend(unknown.into_iter().map(Problem::from_unknown));
    } else {
        outcome.warnings = unknown;
    }
    outcome
}

fn whole_file(name: &str) -> SettingSource {
    SettingSource::File {
        path: name.to_owned(),
        line: 0,
        column: 0,
    }
}

/// GT0017 about the file itself: no settings type, no field.
fn file_problem(source: SettingSource, reason: String) -> Problem {
    Problem::SettingInvalid {
        settings: Key::from_static(""),
        field: String::new(),
        source,
        expected: "a TOML file",
        found: String::new(),
        reason,
    }
}
