//! Collections: a list (`notifiers[]`) or a map by name (`stores{}`) that providers anywhere
//! contribute to. Each collection is a node of the graph that `build()` adds (`graph/
//! collections.rs`): it needs every contribution, in a fixed order, and is built once, when they
//! are, into [`Members`]; a consumer reads it through a typed view, [`All`] or [`ByName`], that
//! borrows it (nothing is copied or allocated per read).

use std::any::TypeId;
use std::marker::PhantomData;
use std::sync::Arc;

use super::provided::AnyValue;
use crate::key::Key;

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
    /// Contributions of type `element`, in order; for a map, `names` holds their names, one
    /// per value.
    pub(crate) fn new(element: TypeId, values: Box<[AnyValue]>, names: Box<[Key]>) -> Self {
        Members {
            element,
            values,
            names,
        }
    }

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
