//! A key literal checked at compile time by the key language itself (`green-tea-key`), the
//! code `build()` checks a key made by hand with: a key that is not one, or that its
//! declaration cannot provide, is a compile error at the literal, in `build()`'s words.

use green_tea_key::Declarer;
use syn::LitStr;

use crate::errors::Errors;

pub(crate) use green_tea_key::{Form, spelling};

/// How `text` is spelled, as a form with the name it is about (`cache` for `cache?`,
/// `stores` for `stores{eu}`), or why it is not a key.
pub(crate) fn spelled(text: &str) -> Result<(Form, &str), String> {
    spelling(text).map(|spelling| (spelling.form(), spelling.name()))
}

/// Each of `keys` (a `provides`, or a decorator's `decorates`) that is not a key, or that
/// `by` cannot provide, is an error at its literal.
pub(crate) fn check_provided(keys: &[LitStr], by: Declarer, errors: &mut Errors) {
    for key in keys {
        let text = key.value();
        let reason = match green_tea_key::check_provided(&text, by) {
            Ok(_) => continue,
            Err(reason) => reason,
        };
        // A literal that is no key at all says only why; one that is a key `by` cannot
        // provide says who cannot provide it.
        if spelling(&text).is_err() {
            errors.spanned(key, reason);
            continue;
        }
        let who = match by {
            Declarer::Step => format!("a step cannot provide `{text}`"),
            Declarer::Decorator => format!("a decorator cannot decorate `{text}`"),
            Declarer::Settings => format!("a settings type cannot provide `{text}`"),
            _ => format!("a provider cannot provide `{text}`"),
        };
        errors.spanned(key, format!("{who}: {reason}"));
    }
}

/// Each of `keys` (a `needs`) that is not a key is an error at its literal; every spelling
/// may be needed.
pub(crate) fn check_needed(keys: &[LitStr], errors: &mut Errors) {
    for key in keys {
        if let Err(reason) = spelling(&key.value()) {
            errors.spanned(key, reason);
        }
    }
}
