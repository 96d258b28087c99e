//! What the macros declare, known to the binary through `inventory`: each key a `#[provider]`
//! or `#[step]` provides. `build()` reads it only to explain a missing key ("declared, but not
//! registered").

use crate::error::{NodeKind, Origin, Unregistered};
use crate::key::{Key, Location};

/// One key provided by a macro-declared provider or step. Only the macros create these.
#[doc(hidden)]
#[derive(Debug)]
pub struct DeclaredKey {
    /// The key.
    pub key: &'static str,
    /// `Provider` or `Step`.
    pub kind: NodeKind,
    /// The declaration's name (its fn or type).
    pub name: &'static str,
    /// Where it was declared.
    pub location: Location,
    /// How to register it, such as `.step(auth::step())`.
    pub register: &'static str,
    /// The conditions it is on under (`when = [...]`), all of which must hold.
    pub when: &'static [&'static str],
}

inventory::collect!(DeclaredKey);

/// A macro declaration that provides `key`, if the binary has one (the first by location).
pub(crate) fn declaration_of(key: &Key) -> Option<Unregistered> {
    inventory::iter::<DeclaredKey>
        .into_iter()
        .filter(|d| d.key == key.as_str())
        .min_by_key(|d| d.location)
        .map(|d| Unregistered {
            declared: Origin {
                kind: d.kind,
                name: d.name.to_owned(),
                location: d.location,
            },
            register: d.register.to_owned(),
            when: d.when.iter().map(|w| (*w).to_owned()).collect(),
        })
}
