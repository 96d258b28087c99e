//! Collections: a list (`notifiers[]`) or a map by name (`stores{}`) that providers anywhere
//! contribute to. Each collection is a node of the graph that `build()` adds: it needs every
//! contribution, in a fixed order, and is built once, when they are, into [`Members`]; a
//! consumer reads it through a typed view, [`All`] or [`ByName`], that borrows it (nothing is
//! copied or allocated per read).

use std::any::TypeId;
use std::marker::PhantomData;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::descriptor::Descriptor;
use crate::error::BoxError;
use crate::graph::KeyMap;
use crate::key::{Key, KeySpec, Location, Spelling, TypeInfo};
use crate::provider::{ErasedProvider, Registered};
use crate::value::{AnyValue, Needs, Provided};

/// A collection as the container holds it: its contributions' values, in order, with their
/// names for a map (sorted by name).
pub(crate) struct Members {
    /// The element type every contribution has (checked at `build()`).
    element: TypeId,
    values: Box<[AnyValue]>,
    /// A map's entry names, one per value; empty for a list.
    names: Box<[Key]>,
}

impl Members {
    /// The members as a list of `T`, if `T` is their element type.
    pub(crate) fn all<T: Send + Sync + 'static>(value: &AnyValue) -> Option<All<'_, T>> {
        let members = value.downcast_ref::<Members>()?;
        (members.element == TypeId::of::<T>()).then_some(All {
            values: &members.values,
            _element: PhantomData,
        })
    }

    /// The members as a map of `T` by name, if `T` is their element type.
    pub(crate) fn by_name<T: Send + Sync + 'static>(value: &AnyValue) -> Option<ByName<'_, T>> {
        let members = value.downcast_ref::<Members>()?;
        (members.element == TypeId::of::<T>()).then_some(ByName {
            names: &members.names,
            values: &members.values,
            _element: PhantomData,
        })
    }
}

/// A list's contributions, in order: the value of a need such as `notifiers[]`.
///
/// The order is the contributors' registration order (`discover()` registers in module
/// path and name order), so it is the same on every run. Reading it copies nothing: it borrows
/// the list the app built once, when its contributors were built.
///
/// ```
/// use std::sync::Arc;
/// use green_tea::{All, Container, ProviderFn};
///
/// trait Notifier: Send + Sync {
///     fn channel(&self) -> &'static str;
/// }
/// struct Email;
/// impl Notifier for Email {
///     fn channel(&self) -> &'static str { "email" }
/// }
/// struct Sms;
/// impl Notifier for Sms {
///     fn channel(&self) -> &'static str { "sms" }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("notifiers[]", Arc::new(Email) as Arc<dyn Notifier>)
///     .value("notifiers[]", Arc::new(Sms) as Arc<dyn Notifier>)
///     .provider(
///         ProviderFn::new("channels", |needs| async move {
///             let notifiers: All<'_, Arc<dyn Notifier>> = needs.all(0)?;
///             Ok(notifiers.iter().map(|n| n.channel()).collect::<Vec<_>>().join(","))
///         })
///         .needs::<Arc<dyn Notifier>>("notifiers[]"),
///     )
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("channels").await.unwrap(), "email,sms");
/// container.close().await.unwrap();
/// # }
/// ```
pub struct All<'a, T> {
    values: &'a [AnyValue],
    _element: PhantomData<&'a T>,
}

impl<'a, T: 'static> All<'a, T> {
    /// How many contributions there are.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are none (a list nobody contributes to is empty, not an error).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The `index`-th contribution.
    pub fn get(&self, index: usize) -> Option<&'a T> {
        self.values.get(index).and_then(|v| v.downcast_ref())
    }

    /// Each contribution, in order.
    pub fn iter(&self) -> <Self as IntoIterator>::IntoIter {
        (*self).into_iter()
    }
}

impl<T: Send + Sync + 'static> All<'_, T> {
    /// Each contribution as an `Arc`, for a value that keeps them (one `Arc` clone each).
    pub fn arcs(&self) -> Vec<Arc<T>> {
        self.values
            .iter()
            .filter_map(|v| Arc::clone(v).downcast().ok())
            .collect()
    }
}

impl<T: Clone + 'static> All<'_, T> {
    /// The contributions, cloned: `Vec<Arc<dyn Notifier>>` for a list of `Arc<dyn Notifier>`.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().cloned().collect()
    }
}

impl<T> Clone for All<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for All<'_, T> {}

impl<'a, T: 'static> IntoIterator for All<'a, T> {
    type Item = &'a T;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, AnyValue>, fn(&'a AnyValue) -> &'a T>;

    fn into_iter(self) -> Self::IntoIter {
        // Every value is a `T`: the element type was checked when this view was made, and
        // each contribution's type against it at `build()`.
        self.values.iter().map(|v| {
            v.downcast_ref()
                .expect("every contribution has the list's type")
        })
    }
}

impl<T> std::fmt::Debug for All<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("All")
            .field("element", &std::any::type_name::<T>())
            .field("len", &self.values.len())
            .finish()
    }
}

/// A map's contributions by name: the value of a need such as `stores{}`, each contribution
/// provided under a key such as `stores{eu}`. Names are unique (a name contributed twice is
/// GT0003) and come in name order.
///
/// ```
/// use green_tea::{ByName, Container, ProviderFn};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("rates{eu}", 20_u32)
///     .value("rates{us}", 7_u32)
///     .provider(
///         ProviderFn::new("vat", |needs| async move {
///             let rates: ByName<'_, u32> = needs.by_name(0)?;
///             Ok(format!("{:?} {:?}", rates.get("eu"), rates.names().collect::<Vec<_>>()))
///         })
///         .needs::<u32>("rates{}"),
///     )
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("vat").await.unwrap(), r#"Some(20) ["eu", "us"]"#);
/// container.close().await.unwrap();
/// # }
/// ```
pub struct ByName<'a, T> {
    names: &'a [Key],
    values: &'a [AnyValue],
    _element: PhantomData<&'a T>,
}

impl<'a, T: 'static> ByName<'a, T> {
    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<&'a T> {
        let at = self.names.binary_search_by(|k| k.as_str().cmp(name)).ok()?;
        self.values[at].downcast_ref()
    }

    /// The names, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        self.names.iter().map(Key::as_str)
    }

    /// Each entry with its name, in name order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&'a str, &'a T)> + 'a {
        self.names.iter().zip(self.values.iter()).map(|(name, v)| {
            let value = v
                .downcast_ref()
                .expect("every contribution has the map's type");
            (name.as_str(), value)
        })
    }
}

impl<T> Clone for ByName<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ByName<'_, T> {}

impl<T> std::fmt::Debug for ByName<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByName")
            .field("element", &std::any::type_name::<T>())
            .field("names", &self.names)
            .finish()
    }
}

/// The provider behind a collection's node: it needs every contribution (its descriptor's
/// needs are filled in by `build()`, which decides them) and provides [`Members`].
pub(crate) struct Collect {
    pub(crate) element: TypeInfo,
    /// A map's entry names, in the order of the needs; empty for a list.
    pub(crate) names: Box<[Key]>,
}

impl ErasedProvider for Collect {
    fn provide<'a>(&'a self, needs: Needs<'a>) -> BoxFuture<'a, Result<Provided, BoxError>> {
        let values = (0..needs.len())
            .map(|i| needs.any(i).cloned())
            .collect::<Result<Box<[AnyValue]>, _>>();
        let provided = values.map_err(BoxError::from).map(|values| {
            Provided::one(Members {
                element: self.element.id(),
                values,
                names: self.names.clone(),
            })
        });
        Box::pin(std::future::ready(provided))
    }

    fn dispose<'a>(&'a self, _provided: &'a Provided) -> BoxFuture<'a, Result<(), BoxError>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// A collection node for each list and map that `declarations` need or contribute to, in the
/// order they first appear. Its type is the one its first consumer needs, or else its first
/// contributor's; its location that declaration's. Its needs are filled in by [`fill`], once
/// `build()` has decided its contributions.
pub(crate) fn nodes<'a>(declarations: impl Iterator<Item = &'a Descriptor>) -> Vec<Registered> {
    // (collection key, type, location, whether a consumer gave the type), and where each key is.
    let mut found: Vec<(Key, TypeInfo, Location, bool)> = Vec::new();
    let mut at: KeyMap<usize> = KeyMap::default();
    let mut note = |key: Key, spec: &KeySpec, location: Location, consumer: bool| match at.get(&key)
    {
        Some(&i) => {
            let seen = &mut found[i];
            if consumer && !seen.3 {
                (seen.1, seen.2, seen.3) = (spec.ty, location, true);
            }
        }
        None => {
            at.insert(key.clone(), found.len());
            found.push((key, spec.ty, location, consumer));
        }
    };
    for descriptor in declarations {
        let location = descriptor.location;
        for spec in descriptor
            .needs
            .iter()
            .filter(|s| s.key.may_be_collection())
        {
            // A list's or a map's key is the collection's own.
            if let Ok(Spelling::List(_) | Spelling::Map(_)) = spec.key.spelling() {
                note(spec.key.clone(), spec, location, true);
            }
        }
        for spec in descriptor
            .provides
            .iter()
            .filter(|s| s.key.may_be_collection())
        {
            match spec.key.spelling() {
                Ok(Spelling::List(_)) => note(spec.key.clone(), spec, location, false),
                Ok(Spelling::Entry { map, .. }) => {
                    note(Key::from(format!("{map}{{}}")), spec, location, false)
                }
                _ => {}
            }
        }
    }
    found
        .into_iter()
        .map(|(key, element, location, _)| {
            let mut descriptor = Descriptor::new(key.to_string()).at(location);
            descriptor.provides.push(KeySpec { key, ty: element });
            Registered {
                descriptor,
                provider: Arc::new(Collect {
                    element,
                    names: Box::new([]),
                }),
            }
        })
        .collect()
}

/// Gives the collection `registered` its contributions: `specs`, in order, as its needs (a
/// map's names from their keys).
pub(crate) fn fill(registered: &mut Registered, specs: Vec<KeySpec>) {
    let collection = &registered.descriptor.provides[0];
    let element = collection.ty;
    // A list's contributions are spelled as the list is (`notifiers[]`), never as a map's
    // entries: only a map's need reading for names.
    let names = match collection.key.spelling() {
        Ok(Spelling::List(_)) => Box::default(),
        _ => specs
            .iter()
            .filter(|s| matches!(s.key.spelling(), Ok(Spelling::Entry { .. })))
            .map(|s| Key::from(crate::graph::entry_name(&s.key).to_owned()))
            .collect(),
    };
    registered.descriptor.needs = specs;
    registered.provider = Arc::new(Collect { element, names });
}
