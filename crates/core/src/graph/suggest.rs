//! "Did you mean": the closest existing key to one that is missing.

use super::decl::Decl;
use super::keys::KeyTable;
use crate::error::Suggestion;
use crate::key::Key;

/// The closest of `candidates` to the missing key, if one is close (the key language's
/// [`closest`]).
pub(crate) fn closest_key<'a>(
    missing: &Key,
    candidates: impl Iterator<Item = &'a Key>,
) -> Option<&'a Key> {
    closest(missing.as_str(), candidates, Key::as_str)
}

pub(crate) use green_tea_key::closest;

pub(super) fn suggestion(key: &Key, keys: &KeyTable, decls: &[Decl<'_>]) -> Suggestion {
    let at = keys.get(key).expect("a suggestion is a key of the table");
    Suggestion {
        key: key.clone(),
        location: decls[at.node.index()].descriptor.location,
    }
}
