//! `Descriptor`: what a declaration (a provider, a step or a route's handler) provides and
//! needs, and where it was declared. The one shape the graph checks.

use std::borrow::Cow;

use crate::key::{Key, KeySpec, Location};

/// What a declaration provides and needs, with the types, and where it was declared.
///
/// Providers, steps and route handlers are all described this way; `#[provider]` and
/// `#[step]` write it for you.
///
/// ```
/// use green_tea::Descriptor;
/// let d = Descriptor::new("billing")
///     .provides::<u64>("billing")
///     .needs::<String>("billingApi");
/// assert_eq!(d.name, "billing");
/// assert_eq!(d.provides[0].key.as_str(), "billing");
/// assert_eq!(d.needs[0].key.as_str(), "billingApi");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Descriptor {
    /// The name users read (a fn or type name; for a route, `POST /orders -> Orders::create`).
    pub name: Cow<'static, str>,
    /// The keys it provides, with their types, in the order its values come.
    pub provides: Vec<KeySpec>,
    /// The keys it needs, with their types, in the order it receives them.
    pub needs: Vec<KeySpec>,
    /// Where it was declared.
    pub location: Location,
}

impl Descriptor {
    /// A declaration named `name`, declared where this is called.
    #[track_caller]
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Descriptor {
            name: name.into(),
            provides: Vec::new(),
            needs: Vec::new(),
            location: Location::caller(),
        }
    }

    /// Adds a provided key of type `T`.
    pub fn provides<T: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.provides.push(KeySpec::of::<T>(key));
        self
    }

    /// Adds a needed key of type `T`.
    pub fn needs<T: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.needs.push(KeySpec::of::<T>(key));
        self
    }

    /// Sets where it was declared (macros pass `file!()`/`line!()`).
    pub fn at(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    /// Renames it.
    pub fn named(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }
}
