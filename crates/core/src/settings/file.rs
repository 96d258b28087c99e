//! The settings file: TOML parsed by the `toml` crate's parser, which keeps the span of every
//! key and value (so a problem names its line and column) and refuses a duplicate key.

use std::ops::Range;

use toml::de::{DeTable, DeValue};

use super::SettingSource;

/// A parsed settings file.
pub(crate) struct SettingsFile<'t> {
    /// Its path as given, or the name of an inline text.
    pub(crate) name: String,
    text: &'t str,
    root: DeTable<'t>,
}

/// A table of the file, where a settings type (or a nested one) looks for its keys.
pub(crate) enum TableAt<'f, 't> {
    /// There, with its entries.
    Found(&'f DeTable<'t>),
    /// Not in the file.
    Absent,
    /// The name is in the file, but as a value that is not a table (at this span).
    NotATable(Range<usize>),
}

/// A parse error, at a line and column.
pub(crate) struct ParseProblem {
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) message: String,
}

impl<'t> SettingsFile<'t> {
    /// Parses `text`; every error the parser finds, each at its place.
    pub(crate) fn parse(name: String, text: &'t str) -> Result<Self, Vec<ParseProblem>> {
        let (root, errors) = DeTable::parse_recoverable(text);
        if errors.is_empty() {
            return Ok(SettingsFile {
                name,
                text,
                root: root.into_inner(),
            });
        }
        Err(errors
            .iter()
            .map(|e| {
                let (line, column) = position(text, e.span().map_or(0, |s| s.start));
                ParseProblem {
                    line,
                    column,
                    message: e.message().trim().to_owned(),
                }
            })
            .collect())
    }

    /// The table at `path` (`["billing", "breaker"]`).
    pub(crate) fn table(&self, path: &[&str]) -> TableAt<'_, 't> {
        let mut table = &self.root;
        for part in path {
            match table.get(*part) {
                None => return TableAt::Absent,
                Some(value) => match value.get_ref() {
                    DeValue::Table(inner) => table = inner,
                    _ => return TableAt::NotATable(value.span()),
                },
            }
        }
        TableAt::Found(table)
    }

    /// Where `span` starts, as a source.
    pub(crate) fn source(&self, span: &Range<usize>) -> SettingSource {
        let (line, column) = position(self.text, span.start);
        SettingSource::File {
            path: self.name.clone(),
            line,
            column,
        }
    }

    /// The file's text at `span`, as written.
    pub(crate) fn snippet(&self, span: &Range<usize>) -> &'t str {
        self.text.get(span.clone()).unwrap_or_default()
    }
}

/// The 1-based line and column (in characters) of the byte `offset` in `text`.
pub(crate) fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[start..].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}
