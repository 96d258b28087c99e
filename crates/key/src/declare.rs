//! What each kind of declaration may provide: the one verdict the macros give at a key
//! literal and `build()` gives for a key made by hand.

use crate::path::split_last;
use crate::spelling::{Spelling, spelling};

/// The kind of declaration that provides a key, which decides the spellings it may provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Declarer {
    /// A provider (`#[provider]` or by hand): one value, a list's contribution or a map's entry.
    Provider,
    /// A ready value (`.value("key", v)`): as a provider.
    Value,
    /// A settings type (`#[derive(Settings)]`): one value of its own key.
    Settings,
    /// A request's step: one value of its request.
    Step,
    /// A decorator: the one key it decorates.
    Decorator,
    /// The collection `build()` adds for a list or a map: the whole of it.
    Collection,
    /// A test's override: may reach into a module (`notifications::http`) and replace a list.
    Override,
}

/// Why a key spelled `spelling` cannot be provided by `by`, if it cannot.
///
/// ```
/// use green_tea_key::{Declarer, Spelling, cannot_provide};
/// assert!(cannot_provide(Spelling::List("notifiers"), Declarer::Provider).is_none());
/// assert!(cannot_provide(Spelling::List("notifiers"), Declarer::Step).is_some());
/// ```
pub fn cannot_provide(spelling: Spelling<'_>, by: Declarer) -> Option<&'static str> {
    use Declarer::{Collection, Decorator, Settings, Step};
    match (spelling, by) {
        (Spelling::One(_), _) | (Spelling::List(_) | Spelling::Map(_), Collection) => None,
        (Spelling::Map(_) | Spelling::List(_) | Spelling::Entry { .. }, Settings) => Some(
            "a settings type provides one value of its own key, not a list's contribution or a \
             map's entry",
        ),
        (Spelling::Optional(_), Decorator) => Some(
            "`?` marks an optional need, and a decorated key is there: decorate it without the \
             `?`",
        ),
        (Spelling::Optional(_), _) => Some(
            "`?` marks an optional need, and a provided key is there: provide it without the `?`",
        ),
        (Spelling::Map(_), Decorator) => Some(
            "`{}` is a whole map, which its entries make, and a decorator provides the one key \
             it decorates",
        ),
        (Spelling::Map(_), _) => Some(
            "`{}` is a whole map, which its entries make: contribute one entry, such as \
             `stores{eu}`",
        ),
        (Spelling::List(_) | Spelling::Entry { .. }, Step) => Some(
            "a step's values are its request's, and a collection is built once for the app: \
             only providers and values contribute to collections",
        ),
        (Spelling::List(_) | Spelling::Entry { .. }, Decorator) => Some(
            "a decorator provides the one key it decorates: a list's contribution or a map's \
             entry has no key of its own to decorate",
        ),
        (Spelling::List(_) | Spelling::Entry { .. }, _) => None,
    }
}

/// How to decorate `name`, a key of `module`: a decorator wraps a key of the module it is
/// registered in, which names it without a module.
pub fn register_decorator_in(module: &str, name: &str) -> String {
    format!("register it in `{module}` (`Module::decorator`) and decorate `{name}`")
}

/// Why a declaration provides a name of its own, without a module.
const QUALIFIED_BY_ITS_MODULE: &str = "a declaration provides a name of its own, without a \
     module: the module it is registered in qualifies it (`http` in `notifications` is \
     `notifications::http`)";

/// How `key` reads as what `by` provides (or decorates), or why `by` cannot provide it: not a
/// key's spelling, a spelling `by` cannot provide ([`cannot_provide`]), or a module named in
/// it where the module it is registered in names it (an override alone may reach into one).
///
/// ```
/// use green_tea_key::{Declarer, Spelling, check_provided};
/// assert_eq!(check_provided("billing", Declarer::Provider), Ok(Spelling::One("billing")));
/// assert!(check_provided("cache?", Declarer::Provider).is_err());
/// assert!(check_provided("users::repo", Declarer::Provider).is_err());
/// assert!(check_provided("users::repo", Declarer::Override).is_ok());
/// let decorator = check_provided("orders::payment", Declarer::Decorator).unwrap_err();
/// assert!(decorator.ends_with("register it in `orders` (`Module::decorator`) and decorate `payment`"));
/// ```
#[inline]
pub fn check_provided(key: &str, by: Declarer) -> Result<Spelling<'_>, String> {
    // Nearly every key is a plain name, which every declaration may provide.
    if crate::is_plain(key) {
        return Ok(Spelling::One(key));
    }
    let spelling = spelling(key)?;
    refuse(key, spelling, by).map_or(Ok(spelling), Err)
}

#[cold]
fn refuse(key: &str, spelling: Spelling<'_>, by: Declarer) -> Option<String> {
    if let Some(reason) = cannot_provide(spelling, by) {
        return Some(reason.to_owned());
    }
    match (by, split_last(key)) {
        (_, (None, _)) | (Declarer::Override, _) => None,
        (Declarer::Decorator, (Some(module), name)) => Some(format!(
            "a decorator wraps a key of the module it is registered in, which names it without \
             a module: {}",
            register_decorator_in(module, name)
        )),
        _ => Some(QUALIFIED_BY_ITS_MODULE.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_each_declaration_may_provide() {
        let list = Spelling::List("n");
        let entry = Spelling::Entry {
            map: "s",
            name: "e",
        };
        for by in [Declarer::Provider, Declarer::Value, Declarer::Override] {
            assert!(cannot_provide(list, by).is_none());
            assert!(cannot_provide(entry, by).is_none());
            assert!(cannot_provide(Spelling::Optional("c"), by).is_some());
            assert!(cannot_provide(Spelling::Map("s"), by).is_some());
        }
        assert!(cannot_provide(Spelling::Map("s"), Declarer::Collection).is_none());
        for by in [Declarer::Step, Declarer::Decorator, Declarer::Settings] {
            for spelling in [Spelling::Optional("c"), list, Spelling::Map("s"), entry] {
                assert!(
                    cannot_provide(spelling, by).is_some(),
                    "{by:?} {spelling:?}"
                );
            }
            assert!(cannot_provide(Spelling::One("c"), by).is_none());
        }
    }

    #[test]
    fn a_provided_key_has_no_module_but_an_overrides() {
        assert_eq!(
            check_provided("billing::client", Declarer::Provider).unwrap_err(),
            QUALIFIED_BY_ITS_MODULE
        );
        assert_eq!(
            check_provided("a::b", Declarer::Step).unwrap_err(),
            QUALIFIED_BY_ITS_MODULE
        );
        let decorator = check_provided("shop::billing::client", Declarer::Decorator).unwrap_err();
        assert!(
            decorator.ends_with(
                "register it in `shop::billing` (`Module::decorator`) and decorate `client`"
            ),
            "{decorator}"
        );
        assert!(check_provided("notifications::http", Declarer::Override).is_ok());
        assert!(check_provided("mail::notifiers[]", Declarer::Provider).is_err());
        assert!(check_provided("stores{eu}", Declarer::Value).is_ok());
    }
}
