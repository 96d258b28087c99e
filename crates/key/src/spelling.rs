//! How a key is spelled: a plain name, an optional need, a list, a map or one entry of one,
//! each name possibly qualified by a module (`billing::client`).

/// What a key's spelling asks of the graph: one value, a need that may be absent, or a
/// collection (a list, or a map by name) that contributors add to from anywhere.
///
/// ```
/// use green_tea_key::{Spelling, spelling};
/// assert_eq!(spelling("cache"), Ok(Spelling::One("cache")));
/// assert_eq!(spelling("cache?"), Ok(Spelling::Optional("cache")));
/// assert_eq!(spelling("notifiers[]"), Ok(Spelling::List("notifiers")));
/// assert_eq!(spelling("stores{}"), Ok(Spelling::Map("stores")));
/// assert_eq!(spelling("stores{eu}"), Ok(Spelling::Entry { map: "stores", name: "eu" }));
/// assert_eq!(spelling("billing::client"), Ok(Spelling::One("billing::client")));
/// assert!(spelling("billing:client").is_err()); // `:` alone is not a separator
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Spelling<'a> {
    /// `cache`: one value, from one provider.
    One(&'a str),
    /// `cache?`: a need that is `None` when nothing provides `cache` (needs only).
    Optional(&'a str),
    /// `notifiers[]`: a list. Provided, it is one contribution to it; needed, the whole list,
    /// in registration order.
    List(&'a str),
    /// `stores{}`: a map by name, whole (needs only).
    Map(&'a str),
    /// `stores{eu}`: the entry `eu` of the map `stores`. Provided, it is a contribution under
    /// that name; needed, that one entry.
    Entry {
        /// The map's name (`stores`).
        map: &'a str,
        /// The entry's name (`eu`).
        name: &'a str,
    },
}

/// A spelling's form, without its names: what the macros hold a parameter's type against
/// (`cache?` takes an `Option`, `notifiers[]` an `All`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// [`Spelling::One`].
    One,
    /// [`Spelling::Optional`].
    Optional,
    /// [`Spelling::List`].
    List,
    /// [`Spelling::Map`].
    Map,
    /// [`Spelling::Entry`].
    Entry,
}

impl<'a> Spelling<'a> {
    /// The spelling's form.
    pub fn form(self) -> Form {
        match self {
            Spelling::One(_) => Form::One,
            Spelling::Optional(_) => Form::Optional,
            Spelling::List(_) => Form::List,
            Spelling::Map(_) => Form::Map,
            Spelling::Entry { .. } => Form::Entry,
        }
    }

    /// The name the spelling is about: `cache` for `cache?`, `notifiers` for `notifiers[]`,
    /// `stores` for `stores{eu}`.
    pub fn name(self) -> &'a str {
        match self {
            Spelling::One(name)
            | Spelling::Optional(name)
            | Spelling::List(name)
            | Spelling::Map(name)
            | Spelling::Entry { map: name, .. } => name,
        }
    }
}

/// The characters a key's name may not hold: they spell optional needs (`?`), lists (`[]`)
/// and maps (`{}`). `::` separates a module from its key.
pub const RESERVED: &[char] = &['?', '[', ']', '{', '}'];

/// The bytes that start a look at a key's spelling: the reserved characters, and `:` (of `::`).
static RESERVED_BYTES: [bool; 256] = {
    let mut reserved = [false; 256];
    let mut i = 0;
    while i < 256 {
        reserved[i] = matches!(i as u8, b'?' | b'[' | b']' | b'{' | b'}' | b':');
        i += 1;
    }
    reserved
};

/// Whether `key` is a plain name: not empty, with no reserved character and no `:`. Nearly
/// every key is, and one pass over its bytes says so. A plain name is the one kind of key a
/// module's path qualifies ([`qualify`](crate::qualify)).
///
/// ```
/// use green_tea_key::is_plain;
/// assert!(is_plain("billing"));
/// assert!(!is_plain("billing::client")); // qualified already
/// assert!(!is_plain("cache?"));
/// assert!(!is_plain(""));
/// ```
#[inline]
pub fn is_plain(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| !RESERVED_BYTES[usize::from(b)])
}

/// Whether `key` may be a collection's or an entry's (it ends in `]` or `}`): the keys
/// `build()` looks at for collections, found without parsing the others.
#[inline]
pub fn may_be_collection(key: &str) -> bool {
    matches!(key.as_bytes().last(), Some(b']' | b'}'))
}

/// How `text` is spelled, or why the spelling is not one: a name holding a reserved
/// character (`?`, `[`, `]`, `{`, `}`) outside the forms of [`Spelling`], a `:` that is not
/// part of a module's `::`, or an empty name. A name may say its module: `billing::client`.
#[inline]
pub fn spelling(text: &str) -> Result<Spelling<'_>, String> {
    if is_plain(text) {
        return Ok(Spelling::One(text));
    }
    spelling_of_others(text)
}

/// [`spelling`] of a key that holds a reserved character (or is empty).
#[cold]
fn spelling_of_others(text: &str) -> Result<Spelling<'_>, String> {
    // The usual others, read at once: an optional need (`cache?`) or a list (`notifiers[]`)
    // of a plain name, as the general reading below reads them.
    if let Some(name) = text.strip_suffix('?')
        && is_plain(name)
    {
        return Ok(Spelling::Optional(name));
    }
    if let Some(name) = text.strip_suffix("[]")
        && is_plain(name)
    {
        return Ok(Spelling::List(name));
    }
    let (spelling, name) = if let Some(name) = text.strip_suffix('?') {
        (Spelling::Optional(name), name)
    } else if let Some(name) = text.strip_suffix("[]") {
        (Spelling::List(name), name)
    } else if let Some(name) = text.strip_suffix("{}") {
        (Spelling::Map(name), name)
    } else if let Some(open) = text.strip_suffix('}').and_then(|t| t.find('{')) {
        let (map, entry) = (&text[..open], &text[open + 1..text.len() - 1]);
        check_name(entry, "an entry's name")?;
        (Spelling::Entry { map, name: entry }, map)
    } else {
        (Spelling::One(text), text)
    };
    check_name(name, "a key's name")?;
    Ok(spelling)
}

fn check_name(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if is_plain(name) {
        return Ok(());
    }
    if let Some(c) = name.chars().find(|c| RESERVED.contains(c)) {
        return Err(format!(
            "{what} `{name}` holds `{c}`, which is reserved: `?` marks an optional need \
             (`cache?`), `[]` a list (`notifiers[]`), `{{}}` a map (`stores{{}}`, `stores{{eu}}`)"
        ));
    }
    // `::` separates a module's name from its key (`billing::client`): each part is a name.
    if !parts_are_names(name) {
        return Err(format!(
            "{what} `{name}` holds `:` other than as `::` between a module and a name \
             (`billing::client`)"
        ));
    }
    Ok(())
}

/// Whether every part of `name` between `::`s is a name: not empty, no `:` (what
/// `name.split("::")` would say, without the substring searcher a `&str` pattern builds).
fn parts_are_names(name: &str) -> bool {
    let bytes = name.as_bytes();
    let (mut at, mut part) = (0, 0);
    while at < bytes.len() {
        if bytes[at] != b':' {
            (at, part) = (at + 1, part + 1);
        } else if part > 0 && bytes.get(at + 1) == Some(&b':') {
            (at, part) = (at + 2, 0);
        } else {
            return false;
        }
    }
    part > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_names_as_split_says() {
        let names = crate::every_short_name();
        for name in &names {
            let by_split = name
                .split(crate::SEP)
                .all(|part| !part.is_empty() && !part.contains(':'));
            assert_eq!(parts_are_names(name), by_split, "{name:?}");
        }
    }

    #[test]
    fn spellings_with_modules() {
        assert_eq!(
            spelling("shop::billing::client"),
            Ok(Spelling::One("shop::billing::client"))
        );
        assert_eq!(
            spelling("cache::store?"),
            Ok(Spelling::Optional("cache::store"))
        );
        assert_eq!(
            spelling("mail::notifiers[]"),
            Ok(Spelling::List("mail::notifiers"))
        );
        assert_eq!(
            spelling("stores{eu::x}"),
            Ok(Spelling::Entry {
                map: "stores",
                name: "eu::x"
            })
        );
        assert_eq!(
            spelling("notifications.email").map(Spelling::name),
            Ok("notifications.email")
        );
    }

    #[test]
    fn reserved_characters_are_refused() {
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
        assert_eq!(spelling("").unwrap_err(), "a key's name is empty");
    }
}
