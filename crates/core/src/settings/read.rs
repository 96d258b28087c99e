//! The pass `build()` runs before it checks the graph: load the sources once, read every
//! settings provider that no override replaces, and look for unknown variables and keys.

use super::file::SettingsFile;
use super::hook::{Reread, SettingsHook};
use super::reader::{Reader, Snapshot};
use super::sources::{FileError, Loaded};
use super::unknown::{Claim, known_variables, unknown};
use super::variables::{clash, flattened};
use super::{SettingSource, Sources, UnknownSetting};
use crate::error::Problem;
use crate::key::{Key, Location};

/// A settings provider for the pass: its hook, its key as the graph names it
/// (`billing::billingSettings` in a module), and whether an override replaces it.
pub(crate) struct ToRead<'h> {
    pub(crate) hook: &'h dyn SettingsHook,
    pub(crate) key: Key,
    /// The prefix it reads under: its type's, or, registered in a module, the module's
    /// (`billing_eu` reads `BILLING_EU_...`).
    pub(crate) prefix: String,
    pub(crate) overridden: bool,
    /// Where it was declared, for a problem with its shape.
    pub(crate) location: Location,
}

/// What the pass found: problems for `build()`, and unknown settings that are warnings (with
/// [`Sources::strict`] they are problems instead).
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) problems: Vec<Problem>,
    pub(crate) warnings: Vec<UnknownSetting>,
}

/// Reads every settings provider in `providers` from `sources`, each keeping its value.
pub(crate) fn read_all(sources: &Sources, providers: &[ToRead<'_>]) -> Outcome {
    read_each(sources, providers, |_, hook, reader| hook.read(reader))
}

/// Reads every settings provider in `providers` from `sources` again, for a reload: each
/// value read (`None` where a problem was found, or for one an override replaces), in the
/// order of `providers`, none kept yet.
pub(crate) fn reread_all(
    sources: &Sources,
    providers: &[ToRead<'_>],
) -> (Outcome, Vec<Option<Reread>>) {
    let mut reread: Vec<Option<Reread>> = providers.iter().map(|_| None).collect();
    let outcome = read_each(sources, providers, |at, hook, reader| {
        reread[at] = hook.reread(reader);
    });
    (outcome, reread)
}

/// The pass itself: loads `sources` once, then calls `read` with each provider's position in
/// `providers`, its hook and its reader (not for one whose shape cannot be read, nor for one
/// an override replaces).
fn read_each(
    sources: &Sources,
    providers: &[ToRead<'_>],
    mut read: impl FnMut(usize, &dyn SettingsHook, &mut Reader<'_>),
) -> Outcome {
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
    let claims: Vec<Claim<'_>> = providers
        .iter()
        .map(|p| Claim {
            prefix: &p.prefix,
            fields: p.hook.fields(),
        })
        .collect();
    let mut known = known_variables(&claims);
    known.extend(loaded.own.iter().cloned());
    let snapshot = Snapshot {
        env: &loaded.env,
        file,
        file_failed,
        known,
    };
    for (at, (provider, claim)) in providers.iter().zip(&claims).enumerate() {
        // A shape that cannot be read is its one problem, overridden or not: the same
        // registration fails where no test overrides it.
        if let Some(problem) = shape_problem(provider, claim) {
            outcome.problems.push(problem);
            continue;
        }
        if provider.overridden {
            continue;
        }
        let hook = provider.hook;
        let mut reader = Reader::new(
            &snapshot,
            provider.key.clone(),
            &provider.prefix,
            claim.fields.clone(),
        );
        read(at, hook, &mut reader);
        outcome.problems.append(&mut reader.problems);
    }
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

/// GT0022 when `provider` cannot be read as registered: no prefix (none of its type's, none of
/// a module's), or two fields that read one variable.
fn shape_problem(provider: &ToRead<'_>, claim: &Claim<'_>) -> Option<Problem> {
    if provider.prefix.is_empty() {
        return Some(Problem::SettingsWithoutPrefix {
            settings: provider.key.clone(),
            location: provider.location,
        });
    }
    let (variable, fields) = clash(&flattened(&provider.prefix, &claim.fields))?;
    Some(Problem::SettingsFieldsClash {
        settings: provider.key.clone(),
        location: provider.location,
        variable,
        fields,
    })
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
