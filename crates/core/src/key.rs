//! Keys, the Rust types behind them, and where things were declared.

use std::any::TypeId;
use std::fmt;
use std::sync::Arc;

/// The name of a value in the graph, such as `"billing"`.
///
/// Each key has exactly one Rust type, declared by the one provider that provides it (a list's
/// or a map's, `notifiers[]` or `stores{}`, by its consumers: see [`Spelling`]).
///
/// ```
/// use green_tea::Key;
/// let key = Key::from("billingApi");
/// assert_eq!(key.as_str(), "billingApi");
/// assert_eq!(key.to_string(), "billingApi");
/// ```
#[derive(Clone)]
pub struct Key(Name);

/// A static name costs nothing; a built one is shared, so cloning a key (which the graph does
/// for every need and every error) never copies the text.
#[derive(Clone)]
enum Name {
    Static(&'static str),
    Shared(Arc<str>),
}

impl Key {
    /// A key from a static name, usable in `const` contexts.
    pub const fn from_static(name: &'static str) -> Self {
        Key(Name::Static(name))
    }

    /// The key's name, if it is shared rather than static (to share it again).
    #[cfg(feature = "metrics")]
    #[inline]
    pub(crate) fn as_shared(&self) -> Option<&Arc<str>> {
        match &self.0 {
            Name::Static(_) => None,
            Name::Shared(name) => Some(name),
        }
    }

    /// The key's name.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Name::Static(name) => name,
            Name::Shared(name) => name,
        }
    }
}

/// What a key's spelling asks of the graph: one value, a need that may be absent, or a
/// collection (a list, or a map by name) that contributors add to from anywhere.
///
/// ```
/// use green_tea::{Key, Spelling};
/// assert_eq!(Key::from("cache").spelling(), Ok(Spelling::One("cache")));
/// assert_eq!(Key::from("cache?").spelling(), Ok(Spelling::Optional("cache")));
/// assert_eq!(Key::from("notifiers[]").spelling(), Ok(Spelling::List("notifiers")));
/// assert_eq!(Key::from("stores{}").spelling(), Ok(Spelling::Map("stores")));
/// assert_eq!(
///     Key::from("stores{eu}").spelling(),
///     Ok(Spelling::Entry { map: "stores", name: "eu" })
/// );
/// assert_eq!(Key::from("billing::client").spelling(), Ok(Spelling::One("billing::client")));
/// assert!(Key::from("billing:client").spelling().is_err()); // `:` alone is not a separator
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

/// The characters a key's name may not hold: they spell optional needs (`?`), lists (`[]`)
/// and maps (`{}`). `::` separates a module from its key.
pub(crate) const RESERVED: &[char] = &['?', '[', ']', '{', '}'];

impl Key {
    /// How the key is spelled, or why the spelling is not one: a name holding a reserved
    /// character (`?`, `[`, `]`, `{`, `}`) outside the forms of [`Spelling`], a `:` that is not
    /// part of a module's `::`, or an empty name. A name may say its module: `billing::client`.
    #[inline]
    pub fn spelling(&self) -> Result<Spelling<'_>, String> {
        let text = self.as_str();
        if self.is_plain() {
            return Ok(Spelling::One(text));
        }
        self.spelling_of_others()
    }

    /// Whether the key is a plain name (`Spelling::One`, well spelled): nearly every key is,
    /// and one pass over its bytes finds no reserved one.
    #[inline]
    pub(crate) fn is_plain(&self) -> bool {
        let text = self.as_str();
        !text.is_empty() && text.bytes().all(|b| !RESERVED_BYTES[usize::from(b)])
    }

    /// [`spelling`](Self::spelling) of a key that holds a reserved character (or is empty).
    #[cold]
    fn spelling_of_others(&self) -> Result<Spelling<'_>, String> {
        let text = self.as_str();
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

    /// Whether the key may be a collection's or an entry's (it ends in `]` or `}`): the keys
    /// `build()` looks at for collections, found without parsing the others.
    #[inline]
    pub(crate) fn may_be_collection(&self) -> bool {
        matches!(self.as_str().as_bytes().last(), Some(b']' | b'}'))
    }

    /// The name the spelling is about: `cache` for `cache?`, `notifiers` for `notifiers[]`,
    /// `stores` for `stores{eu}`; the key itself when it is not well spelled.
    pub fn name(&self) -> &str {
        match self.spelling() {
            Ok(
                Spelling::One(name)
                | Spelling::Optional(name)
                | Spelling::List(name)
                | Spelling::Map(name)
                | Spelling::Entry { map: name, .. },
            ) => name,
            Err(_) => self.as_str(),
        }
    }
}

/// How to decorate `name`, a key of `module`: a decorator wraps a key of the module it is
/// registered in, which names it without a module (the macros' `key::qualified` says the same
/// at compile time).
pub(crate) fn register_decorator_in(module: &str, name: &str) -> String {
    format!("register it in `{module}` (`Module::decorator`) and decorate `{name}`")
}

fn check_name(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if name.bytes().all(|b| !RESERVED_BYTES[usize::from(b)]) {
        return Ok(());
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

impl From<&'static str> for Key {
    fn from(name: &'static str) -> Self {
        Key(Name::Static(name))
    }
}

impl Key {
    /// A key of a name already shared (no copy).
    pub(crate) fn shared(name: Arc<str>) -> Self {
        Key(Name::Shared(name))
    }
}

impl From<String> for Key {
    fn from(name: String) -> Self {
        Key(Name::Shared(Arc::from(name)))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Key {}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // As `str` hashes, so that `Borrow<str>` lookups find it.
        self.as_str().hash(state);
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::borrow::Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// A Rust type as the graph sees it: its `TypeId` (to compare) and its name (to print).
///
/// ```
/// use green_tea::TypeInfo;
/// let t = TypeInfo::of::<String>();
/// assert_eq!(t, TypeInfo::of::<String>());
/// assert_ne!(t, TypeInfo::of::<u32>());
/// assert_eq!(t.short_name(), "String");
/// ```
#[derive(Clone, Copy)]
pub struct TypeInfo {
    id: TypeId,
    name: &'static str,
}

impl TypeInfo {
    /// The type info of `T`.
    pub fn of<T: ?Sized + 'static>() -> Self {
        TypeInfo {
            id: TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        }
    }

    /// The type's `TypeId`.
    #[inline]
    pub fn id(&self) -> TypeId {
        self.id
    }

    /// The full type name, as `std::any::type_name` gives it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The type name with module paths dropped: `Arc<BillingClient>` rather than
    /// `alloc::sync::Arc<app::billing::BillingClient>`.
    pub fn short_name(&self) -> String {
        shorten_type_name(self.name)
    }
}

impl PartialEq for TypeInfo {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for TypeInfo {}

impl fmt::Debug for TypeInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl fmt::Display for TypeInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short_name())
    }
}

/// Drops every `path::` prefix inside a type name, keeping generics and punctuation.
fn shorten_type_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut segment_start = 0;
    for (i, c) in name.char_indices() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            continue;
        }
        push_last_segment(&mut out, &name[segment_start..i]);
        out.push(c);
        segment_start = i + c.len_utf8();
    }
    push_last_segment(&mut out, &name[segment_start..]);
    out
}

fn push_last_segment(out: &mut String, path: &str) {
    out.push_str(path.rsplit("::").next().unwrap_or(path));
}

/// One key together with the type it carries: what a provider provides or needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySpec {
    /// The key.
    pub key: Key,
    /// The Rust type of the value under that key.
    pub ty: TypeInfo,
}

impl KeySpec {
    /// `key` carrying values of type `T`.
    pub fn of<T: 'static>(key: impl Into<Key>) -> Self {
        KeySpec {
            key: key.into(),
            ty: TypeInfo::of::<T>(),
        }
    }
}

/// A place in the source: where a provider, value or override was declared.
///
/// ```
/// use green_tea::Location;
/// let here = Location::caller();
/// assert!(here.file().ends_with(".rs"));
/// assert_eq!(Location::new("src/billing.rs", 12, 1).to_string(), "src/billing.rs:12");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    file: &'static str,
    line: u32,
    column: u32,
}

impl Location {
    /// A location from `file!()`, `line!()` and `column!()`.
    pub const fn new(file: &'static str, line: u32, column: u32) -> Self {
        Location { file, line, column }
    }

    /// The location of the caller of the function this is called in (see `#[track_caller]`).
    #[track_caller]
    pub fn caller() -> Self {
        let l = std::panic::Location::caller();
        Location::new(l.file(), l.line(), l.column())
    }

    /// The source file.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line, starting at 1.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The column, starting at 1.
    pub fn column(&self) -> u32 {
        self.column
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_drop_paths_but_keep_generics() {
        assert_eq!(
            shorten_type_name("alloc::sync::Arc<app::billing::BillingClient>"),
            "Arc<BillingClient>"
        );
        assert_eq!(
            shorten_type_name("(u32, alloc::string::String)"),
            "(u32, String)"
        );
        assert_eq!(
            shorten_type_name("dyn app::Billing + core::marker::Send"),
            "dyn Billing + Send"
        );
    }
}
