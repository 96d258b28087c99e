//! A key's spelling (`cache`, `cache?`, `notifiers[]`, `stores{}`, `stores{eu}`, and with a
//! module, `billing::client`), read as core reads it (`green_tea_core::Key::spelling`), so that a key that is not one, or that its
//! declaration cannot provide, is a compile error at the literal. The macros cannot call core
//! (core depends on them), so the small parse is duplicated here, with core's wording: keep
//! the two in step.

use syn::LitStr;

use crate::errors::Errors;

/// What a key's spelling asks of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// `cache`: one value. `stores{eu}`, one entry of a map, is one value too.
    One,
    /// `cache?`: a need that is `None` when nothing provides it.
    Optional,
    /// `notifiers[]`: a list; provided, one contribution to it.
    List,
    /// `stores{}`: a whole map by name (needs only).
    Map,
    /// `stores{eu}`: the entry `eu` of the map `stores`.
    Entry,
}

/// The characters a key's name may not hold (core's `key::RESERVED`).
const RESERVED: &[char] = &['?', '[', ']', '{', '}'];

/// How `text` is spelled, or why it is not a key (core's words).
pub(crate) fn spelling(text: &str) -> Result<Spelling, String> {
    spelled(text).map(|(spelling, _)| spelling)
}

/// How `text` is spelled, with the name it is about (`cache` for `cache?`, `stores` for
/// `stores{eu}`), or why it is not a key.
pub(crate) fn spelled(text: &str) -> Result<(Spelling, &str), String> {
    let (spelling, name) = if let Some(name) = text.strip_suffix('?') {
        (Spelling::Optional, name)
    } else if let Some(name) = text.strip_suffix("[]") {
        (Spelling::List, name)
    } else if let Some(name) = text.strip_suffix("{}") {
        (Spelling::Map, name)
    } else if let Some(open) = text.strip_suffix('}').and_then(|t| t.find('{')) {
        check_name(&text[open + 1..text.len() - 1], "an entry's name")?;
        (Spelling::Entry, &text[..open])
    } else {
        (Spelling::One, text)
    };
    check_name(name, "a key's name")?;
    Ok((spelling, name))
}

fn check_name(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if let Some(c) = name.chars().find(|c| RESERVED.contains(c)) {
        return Err(format!(
            "{what} `{name}` holds `{c}`, which is reserved: `?` marks an optional need \
             (`cache?`), `[]` a list (`notifiers[]`), `{{}}` a map (`stores{{}}`, `stores{{eu}}`)"
        ));
    }
    // `::` separates a module's name from its key (`billing::client`): each part is a name.
    if name
        .split("::")
        .any(|part| part.is_empty() || part.contains(':'))
    {
        return Err(format!(
            "{what} `{name}` holds `:` other than as `::` between a module and a name \
             (`billing::client`)"
        ));
    }
    Ok(())
}

/// Why a declaration cannot provide a key with a module in it (core's `graph::spelled`, GT0010).
const QUALIFIED_BY_ITS_MODULE: &str = "a declaration provides a name of its own, without a \
     module: the module it is registered in qualifies it (`http` in `notifications` is \
     `notifications::http`)";

/// Who provides a key, which decides the spellings it may provide.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProvidedBy {
    /// A `#[provider]`: one value, a list's contribution or a map's entry.
    Provider,
    /// A `#[step]`: one value of its request.
    Step,
    /// A `#[decorator]`: the one key it decorates.
    Decorator,
    /// A `#[derive(Settings)]`: one value.
    Settings,
}

/// Why `provider` cannot provide a key spelled `spelling` (core's `graph::cannot_provide`).
fn cannot_provide(spelling: Spelling, provider: ProvidedBy) -> Option<&'static str> {
    match (spelling, provider) {
        (Spelling::One, _) | (Spelling::List | Spelling::Entry, ProvidedBy::Provider) => None,
        (Spelling::Map | Spelling::List | Spelling::Entry, ProvidedBy::Settings) => Some(
            "a settings type provides one value of its own key, not a list's contribution or a \
             map's entry",
        ),
        (Spelling::Optional, ProvidedBy::Decorator) => Some(
            "`?` marks an optional need, and a decorated key is there: decorate it without the \
             `?`",
        ),
        (Spelling::Optional, _) => Some(
            "`?` marks an optional need, and a provided key is there: provide it without the `?`",
        ),
        (Spelling::Map, ProvidedBy::Decorator) => Some(
            "`{}` is a whole map, which its entries make, and a decorator provides the one key \
             it decorates",
        ),
        (Spelling::Map, _) => Some(
            "`{}` is a whole map, which its entries make: contribute one entry, such as \
             `stores{eu}`",
        ),
        (Spelling::List | Spelling::Entry, ProvidedBy::Step) => Some(
            "a step's values are its request's, and a collection is built once for the app: \
             only providers and values contribute to collections",
        ),
        (Spelling::List | Spelling::Entry, ProvidedBy::Decorator) => Some(
            "a decorator provides the one key it decorates: a list's contribution or a map's \
             entry has no key of its own to decorate",
        ),
    }
}

/// Each of `keys` (a `provides`, or a decorator's `decorates`) that is not a key, or that
/// `provider` cannot provide, is an error at its literal.
pub(crate) fn check_provided(keys: &[LitStr], provider: ProvidedBy, errors: &mut Errors) {
    for key in keys {
        let text = key.value();
        let spelling = match spelling(&text) {
            Err(reason) => {
                errors.spanned(key, reason);
                continue;
            }
            Ok(spelling) => spelling,
        };
        let message = match provider {
            ProvidedBy::Provider => format!("a provider cannot provide `{text}`"),
            ProvidedBy::Step => format!("a step cannot provide `{text}`"),
            ProvidedBy::Decorator => format!("a decorator cannot decorate `{text}`"),
            ProvidedBy::Settings => format!("a settings type cannot provide `{text}`"),
        };
        if let Some(reason) = cannot_provide(spelling, provider) {
            errors.spanned(key, format!("{message}: {reason}"));
        } else if let Some(reason) = qualified(&text, provider) {
            errors.spanned(key, format!("{message}: {reason}"));
        }
    }
}

/// Why `provider` cannot provide `text`, a key with a module in it (`billing::client`): its
/// module qualifies a declaration's keys, and a decorator wraps a key of its own module.
fn qualified(text: &str, provider: ProvidedBy) -> Option<String> {
    let (module, name) = text.rsplit_once("::")?;
    Some(match provider {
        ProvidedBy::Decorator => format!(
            "a decorator wraps a key of the module it is registered in, which names it without \
             a module: register it in `{module}` (`Module::decorator`) and decorate `{name}`"
        ),
        ProvidedBy::Provider | ProvidedBy::Step | ProvidedBy::Settings => {
            QUALIFIED_BY_ITS_MODULE.to_owned()
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_read_as_core_reads_them() {
        assert_eq!(spelling("cache"), Ok(Spelling::One));
        assert_eq!(spelling("cache?"), Ok(Spelling::Optional));
        assert_eq!(spelling("notifiers[]"), Ok(Spelling::List));
        assert_eq!(spelling("stores{}"), Ok(Spelling::Map));
        assert_eq!(spelling("stores{eu}"), Ok(Spelling::Entry));
        assert_eq!(spelling("notifications.email"), Ok(Spelling::One));
        assert_eq!(spelled("stores{eu}"), Ok((Spelling::Entry, "stores")));
        assert_eq!(spelled("cache?"), Ok((Spelling::Optional, "cache")));
        assert_eq!(spelling("billing::client"), Ok(Spelling::One));
        assert_eq!(spelling("shop::billing::client"), Ok(Spelling::One));
        assert_eq!(
            spelled("cache::store?"),
            Ok((Spelling::Optional, "cache::store"))
        );
        assert_eq!(spelling("mail::notifiers[]"), Ok(Spelling::List));
        assert_eq!(spelling("stores{eu::x}"), Ok(Spelling::Entry));
    }

    #[test]
    fn reserved_characters_are_refused_with_core_words() {
        let reserved = spelling("cache??").unwrap_err();
        assert!(
            reserved.starts_with("a key's name `cache?` holds `?`"),
            "{reserved}"
        );
        for bad in ["::x", "a::", "a:::b", "a::::b", "a:b", ":"] {
            assert_eq!(
                spelling(bad).unwrap_err(),
                format!(
                    "a key's name `{bad}` holds `:` other than as `::` between a module and a \
                     name (`billing::client`)"
                )
            );
        }
        assert_eq!(
            spelling("::x?").unwrap_err().split(' ').nth(3),
            Some("`::x`")
        );
        assert_eq!(
            spelling("stores{}x").unwrap_err().split(' ').nth(3),
            Some("`stores{}x`")
        );
        assert_eq!(
            spelling("stores{e{u}").unwrap_err().split(' ').nth(3),
            Some("`e{u`")
        );
        assert_eq!(spelling("[]").unwrap_err(), "a key's name is empty");
    }

    #[test]
    fn a_provided_key_has_no_module() {
        assert_eq!(
            qualified("billing::client", ProvidedBy::Provider).as_deref(),
            Some(QUALIFIED_BY_ITS_MODULE)
        );
        assert_eq!(
            qualified("a::b", ProvidedBy::Step).as_deref(),
            Some(QUALIFIED_BY_ITS_MODULE)
        );
        let decorator = qualified("shop::billing::client", ProvidedBy::Decorator).unwrap();
        assert!(
            decorator.ends_with(
                "register it in `shop::billing` (`Module::decorator`) and decorate `client`"
            ),
            "{decorator}"
        );
        assert_eq!(qualified("billing", ProvidedBy::Provider), None);
    }

    #[test]
    fn what_each_declaration_may_provide() {
        assert!(cannot_provide(Spelling::List, ProvidedBy::Provider).is_none());
        assert!(cannot_provide(Spelling::Entry, ProvidedBy::Provider).is_none());
        assert!(cannot_provide(Spelling::Optional, ProvidedBy::Provider).is_some());
        assert!(cannot_provide(Spelling::Map, ProvidedBy::Provider).is_some());
        assert!(cannot_provide(Spelling::List, ProvidedBy::Step).is_some());
        assert!(cannot_provide(Spelling::Entry, ProvidedBy::Step).is_some());
        assert!(cannot_provide(Spelling::One, ProvidedBy::Step).is_none());
        for spelling in [
            Spelling::Optional,
            Spelling::List,
            Spelling::Map,
            Spelling::Entry,
        ] {
            assert!(cannot_provide(spelling, ProvidedBy::Decorator).is_some());
        }
    }
}
