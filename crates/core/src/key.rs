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

/// What a key's spelling asks of the graph (the key language's own type, shared with the
/// macros, so that a literal the macros accept is one `build()` reads alike).
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
pub use green_tea_key::Spelling;

impl Key {
    /// How the key is spelled, or why the spelling is not one: a name holding a reserved
    /// character (`?`, `[`, `]`, `{`, `}`) outside the forms of [`Spelling`], a `:` that is not
    /// part of a module's `::`, or an empty name. A name may say its module: `billing::client`.
    #[inline]
    pub fn spelling(&self) -> Result<Spelling<'_>, String> {
        green_tea_key::spelling(self.as_str())
    }

    /// Whether the key is a plain name (`Spelling::One`, well spelled, no module): nearly
    /// every key is, and one pass over its bytes finds no reserved one.
    #[inline]
    pub(crate) fn is_plain(&self) -> bool {
        green_tea_key::is_plain(self.as_str())
    }

    /// Whether the key may be a collection's or an entry's (it ends in `]` or `}`): the keys
    /// `build()` looks at for collections, found without parsing the others.
    #[inline]
    pub(crate) fn may_be_collection(&self) -> bool {
        green_tea_key::may_be_collection(self.as_str())
    }

    /// The name the spelling is about: `cache` for `cache?`, `notifiers` for `notifiers[]`,
    /// `stores` for `stores{eu}`; the key itself when it is not well spelled.
    pub fn name(&self) -> &str {
        match self.spelling() {
            Ok(spelling) => spelling.name(),
            Err(_) => self.as_str(),
        }
    }
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
        green_tea_key::shorten_type_name(self.name)
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
