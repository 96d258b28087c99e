//! The arguments each place of `#[settings(...)]` takes, with their likely misspellings: the
//! struct's and a field's, side by side, since each place names the other's when an argument
//! is written in the wrong one.

use crate::args::Known;

/// The arguments the struct's attribute takes.
pub(super) const CONTAINER: Known = Known {
    names: &[
        "provides", "prefix", "validate", "when", "discover", "reload",
    ],
    synonyms: &[
        ("reloadable", "reload"),
        ("hot_reload", "reload"),
        ("live_reload", "reload"),
        ("provide", "provides"),
        ("key", "provides"),
        ("name", "provides"),
        ("env_prefix", "prefix"),
        ("env", "prefix"),
        ("validator", "validate"),
        ("check", "validate"),
        ("validate_with", "validate"),
        ("condition", "when"),
        ("only_when", "when"),
        ("enabled_when", "when"),
        ("switch", "when"),
        ("discoverable", "discover"),
        ("discovery", "discover"),
        ("inventory", "discover"),
        ("register", "discover"),
    ],
};

/// The arguments a field's attribute takes.
pub(super) const FIELD: Known = Known {
    names: &["default", "secret", "nested", "rename", "reload"],
    synonyms: &[
        ("reloadable", "reload"),
        ("hot_reload", "reload"),
        ("live_reload", "reload"),
        ("default_value", "default"),
        ("defaults", "default"),
        ("sensitive", "secret"),
        ("redact", "secret"),
        ("redacted", "secret"),
        ("hidden", "secret"),
        ("flatten", "nested"),
        ("nest", "nested"),
        ("group", "nested"),
        ("name", "rename"),
        ("alias", "rename"),
        ("env", "rename"),
    ],
};
