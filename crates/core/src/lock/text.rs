//! The lockfile's text: written by [`GraphLock::to_text`], read by [`GraphLock::parse`].

use std::fmt::Write as _;

use super::model::{GraphLock, LOCK_VERSION, LockItem};

/// The comment the file opens with: what it is and how to accept a change.
const HEADER: &str = "\
# green-tea graph lock: the app's shape over every shape its switches allow. Written by
# green-tea, compared in `cargo test`: do not edit. To accept a change, run the test with
# GREEN_TEA_LOCK=overwrite and commit the file.
";

/// Why a lockfile could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// A line that is neither a comment, a block's header nor an attribute.
    #[error("line {line} of the lockfile is not a block's header or an attribute: `{text}`")]
    Line {
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// The file has no `version` line, or one of a format this green-tea does not write.
    #[error(
        "the lockfile is of format {found}, and this green-tea writes format {LOCK_VERSION}: \
         write it again (GREEN_TEA_LOCK=overwrite) and review the diff as a change of format"
    )]
    Format {
        /// The version found (`none` when there is no `version` line).
        found: String,
    },
}

impl GraphLock {
    /// The file: a comment, `version 1`, then each block with its attributes, a blank line
    /// between blocks. Byte for byte the same for the same shape.
    pub fn to_text(&self) -> String {
        let mut text = String::from(HEADER);
        let _ = writeln!(text, "version {LOCK_VERSION}");
        for item in &self.items {
            let _ = write!(text, "\n{} {}\n", item.kind, item.id);
            for (name, value) in &item.attrs {
                match value.is_empty() {
                    true => {
                        let _ = writeln!(text, "  {name}");
                    }
                    false => {
                        let _ = writeln!(text, "  {name} {value}");
                    }
                }
            }
        }
        text
    }

    /// Reads a lockfile back (what [`to_text`](Self::to_text) wrote, with any line endings).
    pub fn parse(text: &str) -> Result<GraphLock, LockError> {
        let mut version = None;
        let mut items: Vec<LockItem> = Vec::new();
        for (at, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || LockError::Line {
                line: at + 1,
                text: line.to_owned(),
            };
            if let Some(attr) = line.strip_prefix("  ") {
                let item = items.last_mut().ok_or_else(bad)?;
                let (name, value) = attr.split_once(' ').unwrap_or((attr, ""));
                if name.is_empty() {
                    return Err(bad());
                }
                item.attrs.push((name.to_owned(), value.to_owned()));
                continue;
            }
            let (kind, id) = line.split_once(' ').ok_or_else(bad)?;
            if kind == "version" && items.is_empty() {
                version = Some(id.to_owned());
                continue;
            }
            if version.is_none() {
                return Err(LockError::Format {
                    found: "none".to_owned(),
                });
            }
            items.push(LockItem {
                kind: kind.to_owned(),
                id: id.to_owned(),
                attrs: Vec::new(),
            });
        }
        match version {
            Some(v) if v == LOCK_VERSION.to_string() => Ok(GraphLock { items }),
            found => Err(LockError::Format {
                found: found.unwrap_or_else(|| "none".to_owned()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock() -> GraphLock {
        let mut route = LockItem::new("route", "POST /orders");
        route.attr("builds", "billing").attr("builds", "billingApi");
        let mut setting = LockItem::new("setting", "BILLING_TOKEN");
        setting.attr("type", "Secret<String>").flag("secret", true);
        GraphLock::new(vec![setting, route])
    }

    #[test]
    fn the_text_reads_back_as_it_was_written() {
        let lock = lock();
        let text = lock.to_text();
        assert!(text.ends_with(
            "version 1\n\nroute POST /orders\n  builds billing\n  builds billingApi\n\n\
             setting BILLING_TOKEN\n  type Secret<String>\n  secret\n"
        ));
        assert_eq!(GraphLock::parse(&text).unwrap(), lock);
        assert_eq!(GraphLock::parse(&text.replace('\n', "\r\n")).unwrap(), lock);
    }

    #[test]
    fn a_file_of_another_format_or_a_stray_line_is_refused() {
        let text = lock().to_text();
        let err = GraphLock::parse(&text.replace("version 1", "version 2")).unwrap_err();
        assert_eq!(err, LockError::Format { found: "2".into() });
        assert!(
            err.to_string()
                .contains("write it again (GREEN_TEA_LOCK=overwrite)")
        );
        let err = GraphLock::parse("route POST /x\n").unwrap_err();
        assert_eq!(
            err,
            LockError::Format {
                found: "none".into()
            }
        );
        let err = GraphLock::parse("version 1\n  builds x\n").unwrap_err();
        assert_eq!(
            err,
            LockError::Line {
                line: 2,
                text: "  builds x".into()
            }
        );
        let err = GraphLock::parse("version 1\nroute\n").unwrap_err();
        assert!(matches!(err, LockError::Line { line: 2, .. }), "{err}");
    }

    #[test]
    fn alternatives_of_one_key_are_told_apart_by_their_conditions() {
        let mut on = LockItem::new("provider", "cache");
        on.attr("when", "cacheOn = true");
        let mut off = LockItem::new("provider", "cache");
        off.attr("when", "cacheOn = false");
        let lock = GraphLock::new(vec![on, off]);
        let ids: Vec<&str> = lock.items().iter().map(|i| i.id.as_str()).collect();
        assert_eq!(
            ids,
            ["cache when cacheOn = false", "cache when cacheOn = true"]
        );
        let same = GraphLock::new(vec![LockItem::new("step", "a"), LockItem::new("step", "a")]);
        let ids: Vec<&str> = same.items().iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["a #1", "a #2"]);
    }
}
