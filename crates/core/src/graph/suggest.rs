//! "Did you mean": the closest existing key to one that is missing.

use super::{Decl, KeyTable};
use crate::error::Suggestion;
use crate::key::Key;

/// Keys that differ only in case and separators (`billing_api`, `billingApi`) are the same
/// word to a reader, so they match first; otherwise the closest by edit distance, if close.
pub(crate) fn closest_key<'a>(
    missing: &Key,
    candidates: impl Iterator<Item = &'a Key>,
) -> Option<&'a Key> {
    closest(missing.as_str(), candidates, Key::as_str)
}

/// The closest of `candidates` to `wanted` by name, if one is close: the "did you mean" used
/// for keys, step names and paths.
pub fn closest<'a, T: Ord>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a T>,
    name: impl Fn(&T) -> &str,
) -> Option<&'a T> {
    let normalized = normalize(wanted);
    let mut best: Option<(f64, &T)> = None;
    for candidate in candidates {
        let score = if normalize(name(candidate)) == normalized {
            2.0
        } else {
            strsim::normalized_damerau_levenshtein(
                &wanted.to_lowercase(),
                &name(candidate).to_lowercase(),
            )
        };
        let better = match best {
            None => true,
            Some((s, k)) => score > s || (score == s && candidate < k),
        };
        if score >= 0.7 && better {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, k)| k)
}

fn normalize(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

pub(super) fn suggestion(key: &Key, keys: &KeyTable, decls: &[Decl<'_>]) -> Suggestion {
    let at = keys.get(key).expect("a suggestion is a key of the table");
    Suggestion {
        key: key.clone(),
        location: decls[at.node.index()].descriptor.location,
    }
}
