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
    /// The declarations it comes after: in each list it contributes to, after their
    /// contributions; among the decorators of its key, outside them (it wraps what they
    /// made). By name; empty: registration order alone decides.
    pub after: Vec<Cow<'static, str>>,
    /// The conditions it is on under (`cacheOn`, `gateway = stripe`), all of them: off in
    /// every shape where one does not hold. Empty: on in every shape. See
    /// [`Switch`](crate::switches::Switch).
    pub when: Vec<Cow<'static, str>>,
    /// The path of the module it was registered in, once registered in one.
    pub(crate) module: Option<std::sync::Arc<str>>,
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
            after: Vec::new(),
            when: Vec::new(),
            module: None,
        }
    }

    /// The path of the module it was registered in (`notifications`, `shop::orders`), once
    /// it is registered in one; `None` for a declaration of the app itself.
    pub fn module(&self) -> Option<&str> {
        self.module.as_deref()
    }

    /// The name an error or `explain` shows: qualified by its module's path
    /// (`notifications::http`) for a declaration registered in one.
    pub(crate) fn qualified_name(&self) -> Cow<'_, str> {
        match &self.module {
            // A value is named after its key (`` value `http` ``): the key is qualified.
            Some(path) => match self
                .name
                .strip_prefix("value `")
                .and_then(|n| n.strip_suffix('`'))
            {
                Some(key) => Cow::Owned(format!(
                    "value `{}`",
                    green_tea_key::qualify(Some(path), key)
                )),
                None => Cow::Owned(green_tea_key::join(path, &self.name)),
            },
            None => Cow::Borrowed(&self.name),
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

    /// Puts it after the declaration named `name`: its contributions to a list come after
    /// that declaration's, and as a decorator it wraps what that decorator made. `build()`
    /// checks that the name is a contributor to the same list (or a decorator of the same key)
    /// and that the order has no cycle (GT0013).
    pub fn after(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.after.push(name.into());
        self
    }

    /// Puts it under the condition `condition` (`cacheOn`, `!cacheOn`, `gateway = stripe`,
    /// `gateway = stripe | paypal`): it is part of the graph only when the switch's outcome is
    /// one of those; `build()` checks it in every shape (see
    /// [`Switch`](crate::switches::Switch)). Several conditions must all hold.
    pub fn when(mut self, condition: impl Into<Cow<'static, str>>) -> Self {
        self.when.push(condition.into());
        self
    }

    /// The keys it provides, in order (for what an error names).
    pub(crate) fn provided_keys(&self) -> Vec<Key> {
        self.provides.iter().map(|s| s.key.clone()).collect()
    }

    /// Renames it.
    pub fn named(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }
}
