//! A module's path and its keys: `notifications::http` is the key `http` of the module
//! `notifications`, and `shop::orders::repo` the key `repo` of `shop`'s sub-module `orders`.
//!
//! [`qualify`] is the one place a key gets its module's path, and [`is_plain`] the one rule of
//! which keys get it: a plain name does; a list's contribution (`notifiers[]`), a map's entry
//! (`stores{eu}`), an optional need (`cache?`) and a key that names a module already
//! (`users::repo`) are the app's or another module's, and stay as written.

use std::borrow::Cow;

use crate::spelling::is_plain;

/// What separates a module's path from a key, and a module from its sub-module.
pub const SEP: &str = "::";

/// `key` as a declaration registered in the module at `path` provides it: `path::key` for a
/// plain name ([`is_plain`]), the key as written otherwise, and at the root (`None`).
///
/// ```
/// use green_tea_key::qualify;
/// assert_eq!(qualify(Some("notifications"), "http"), "notifications::http");
/// assert_eq!(qualify(Some("shop::orders"), "repo"), "shop::orders::repo");
/// assert_eq!(qualify(None, "http"), "http");
/// assert_eq!(qualify(Some("mail"), "notifiers[]"), "notifiers[]"); // the app's list
/// assert_eq!(qualify(Some("orders"), "users::repo"), "users::repo");
/// ```
#[inline]
pub fn qualify<'k>(path: Option<&str>, key: &'k str) -> Cow<'k, str> {
    match path {
        Some(path) if is_plain(key) => {
            let mut out = String::with_capacity(path.len() + SEP.len() + key.len());
            join_into(&mut out, path, key);
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(key),
    }
}

/// [`qualify`], appended to `out` (for a caller that reuses one buffer across keys).
#[inline]
pub fn qualify_into(out: &mut String, path: Option<&str>, key: &str) {
    match path {
        Some(path) if is_plain(key) => join_into(out, path, key),
        _ => out.push_str(key),
    }
}

/// `path::name` with no rule: for what is always a path's member, such as a sub-module's path,
/// a declaration's name, or an export relative to its module (`sms::gateway` of
/// `notifications`). A key a declaration provides goes through [`qualify`].
///
/// ```
/// use green_tea_key::join;
/// assert_eq!(join("notifications", "sms::gateway"), "notifications::sms::gateway");
/// ```
#[inline]
pub fn join(path: &str, name: &str) -> String {
    let mut out = String::new();
    join_into(&mut out, path, name);
    out
}

/// Appends `path::name` to `out` with no rule: for what is always a path's member, such as a
/// sub-module's path (`shop` and `orders`) or a declaration's name. A key goes through
/// [`qualify_into`].
#[inline]
pub fn join_into(out: &mut String, path: &str, name: &str) {
    out.reserve(path.len() + SEP.len() + name.len());
    out.push_str(path);
    out.push_str(SEP);
    out.push_str(name);
}

/// `key`'s name inside the module at `path` (`http` for `notifications::http`, `sms::gateway`
/// for `notifications::sms::gateway`), if the key is that module's or a sub-module's: the
/// inverse of [`qualify`].
///
/// ```
/// use green_tea_key::relative_to;
/// assert_eq!(relative_to("notifications::sms::gateway", "notifications"), Some("sms::gateway"));
/// assert_eq!(relative_to("notificationsx::http", "notifications"), None);
/// assert_eq!(relative_to("http", "notifications"), None);
/// ```
#[inline]
pub fn relative_to<'k>(key: &'k str, path: &str) -> Option<&'k str> {
    key.strip_prefix(path)?.strip_prefix(SEP)
}

/// Whether `path` is `module` or inside it (`shop::orders` is within `shop`; `shopping` is not).
///
/// ```
/// use green_tea_key::is_within;
/// assert!(is_within("shop::orders", "shop"));
/// assert!(is_within("shop", "shop"));
/// assert!(!is_within("shopping", "shop"));
/// ```
#[inline]
pub fn is_within(path: &str, module: &str) -> bool {
    path == module || relative_to(path, module).is_some()
}

/// The module a name is in and its last segment: `(Some("shop::orders"), "repo")` for
/// `shop::orders::repo`, `(None, "repo")` for `repo`.
///
/// ```
/// use green_tea_key::split_last;
/// assert_eq!(split_last("shop::orders::repo"), (Some("shop::orders"), "repo"));
/// assert_eq!(split_last("repo"), (None, "repo"));
/// ```
#[inline]
pub fn split_last(name: &str) -> (Option<&str>, &str) {
    // `name.rsplit_once(SEP)`, without the substring searcher a `&str` pattern builds (a few
    // hundred instructions, where the names are a few bytes): the last `::`, found from the end.
    let bytes = name.as_bytes();
    let mut at = bytes.len();
    while at >= 2 {
        if bytes[at - 1] == b':' && bytes[at - 2] == b':' {
            return (Some(&name[..at - 2]), &name[at..]);
        }
        at -= 1;
    }
    (None, name)
}

/// The names a module path is made of, outermost first: `shop`, `orders` for `shop::orders`.
///
/// ```
/// use green_tea_key::segments;
/// assert_eq!(segments("shop::orders").collect::<Vec<_>>(), ["shop", "orders"]);
/// ```
#[inline]
pub fn segments(path: &str) -> std::str::Split<'_, &'static str> {
    path.split(SEP)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `split_last` is `rsplit_once("::")`, on well-spelled names and on any mix of `:`.
    #[test]
    fn split_last_is_rsplit_once() {
        let mut names = crate::every_short_name();
        names.extend(["shop::orders::repo", "a:::b", "::", ":::", "a::"].map(String::from));
        for name in &names {
            let expected = match name.rsplit_once(SEP) {
                Some((module, last)) => (Some(module), last),
                None => (None, name.as_str()),
            };
            assert_eq!(split_last(name), expected, "{name:?}");
        }
    }
}
