//! Typed ids: a provider, a step, a route and a request-local value each have an id type of its
//! own, so that passing one where another is meant does not compile.
//!
//! Ids are issued by the structure that stores what they name ([`IdVec::push`]) and are only
//! meaningful there; nothing computes one from another's position.

use std::fmt;
use std::marker::PhantomData;

/// An index into an [`IdVec`]; implemented by the id types of this module only. Its
/// conversions to and from positions are private to this crate.
pub trait Id: Copy + Eq + fmt::Debug + private::Sealed {}

mod private {
    /// Not nameable outside the crate, so no other crate can make an id from a number.
    pub trait Sealed {
        fn from_index(index: usize) -> Self;
        fn index(self) -> usize;
    }
}

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident => $label:literal),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl Id for $name {}

        impl private::Sealed for $name {
            fn from_index(index: usize) -> Self {
                $name::at(index)
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl $name {
            /// The id of position `index`: for the structures of this crate that issue ids.
            pub(crate) fn at(index: usize) -> Self {
                $name(u32::try_from(index).expect(concat!("fewer than 2^32 ", $label, "s")))
            }

            /// Its position in the structure that issued it.
            #[allow(dead_code)] // not every id type is read by position outside `IdVec`
            pub(crate) fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($label, "#{}"), self.0)
            }
        }
    )*};
}

ids! {
    /// A provider (or a value, or an override) of the app's container.
    ProviderId => "provider",
    /// A request-scoped step.
    StepId => "step",
    /// A route's handler.
    RouteId => "route",
    /// A value one request holds: one of its steps' outputs, by position in that request's values.
    LocalId => "local",
}

impl LocalId {
    /// Its position among the request's values: the values of a route's steps, in run order.
    pub fn position(self) -> usize {
        self.0 as usize
    }
}

/// A value a provider provides: the `index`-th key of provider `provider`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AppValue {
    pub(crate) provider: ProviderId,
    pub(crate) index: u32,
}

impl AppValue {
    /// The provider that provides it.
    pub fn provider(self) -> ProviderId {
        self.provider
    }
}

/// A value a step provides, per request: the `index`-th key of step `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StepValue {
    pub(crate) step: StepId,
    pub(crate) index: u32,
}

/// Where a request-scoped declaration's need comes from while serving: a provider's value, or
/// a value an earlier step of the same request provided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A provider's value, built at most once for the app.
    App(AppValue),
    /// One of the request's own values.
    Local(LocalId),
    /// An optional need (`cache?`) that nothing provides: it reads as `None`.
    Absent,
}

/// A vector indexed by a typed id: `IdVec<StepId, T>` can be indexed by a `StepId` only.
#[derive(Clone)]
pub struct IdVec<I, T> {
    items: Vec<T>,
    _id: PhantomData<fn(I) -> I>,
}

impl<I: Id, T> IdVec<I, T> {
    /// An empty vector.
    pub fn new() -> Self {
        IdVec {
            items: Vec::new(),
            _id: PhantomData,
        }
    }

    /// An empty vector with room for `capacity` items.
    pub fn with_capacity(capacity: usize) -> Self {
        IdVec {
            items: Vec::with_capacity(capacity),
            _id: PhantomData,
        }
    }

    /// Adds `item` and returns its id.
    pub fn push(&mut self, item: T) -> I {
        let id = <I as private::Sealed>::from_index(self.items.len());
        self.items.push(item);
        id
    }

    /// How many items there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Takes the items from position `at` on.
    pub(crate) fn split_off(&mut self, at: usize) -> Vec<T> {
        self.items.split_off(at.min(self.items.len()))
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The item of `id`, if there is one.
    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(private::Sealed::index(id))
    }

    /// The items in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// The items in id order, to change.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + use<I, T> {
        (0..self.items.len()).map(<I as private::Sealed>::from_index)
    }

    /// The items with their ids, in order.
    pub fn iter_enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + '_ {
        self.items
            .iter()
            .enumerate()
            .map(|(i, item)| (<I as private::Sealed>::from_index(i), item))
    }

    /// The same ids, each mapped to a new item.
    pub fn map<U>(self, mut f: impl FnMut(I, T) -> U) -> IdVec<I, U> {
        IdVec {
            items: self
                .items
                .into_iter()
                .enumerate()
                .map(|(i, item)| f(<I as private::Sealed>::from_index(i), item))
                .collect(),
            _id: PhantomData,
        }
    }

    /// The same ids, each mapped by reference to a new item.
    pub fn map_ref<U>(&self, mut f: impl FnMut(I, &T) -> U) -> IdVec<I, U> {
        IdVec {
            items: self
                .iter_enumerated()
                .map(|(id, item)| f(id, item))
                .collect(),
            _id: PhantomData,
        }
    }

    /// A vector of `len` copies of `value`.
    pub fn filled(value: T, len: usize) -> Self
    where
        T: Clone,
    {
        IdVec {
            items: vec![value; len],
            _id: PhantomData,
        }
    }
}

impl<I: Id, T> Default for IdVec<I, T> {
    fn default() -> Self {
        IdVec::new()
    }
}

impl<I: Id, T> std::ops::Index<I> for IdVec<I, T> {
    type Output = T;
    fn index(&self, id: I) -> &T {
        &self.items[private::Sealed::index(id)]
    }
}

impl<I: Id, T> std::ops::IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[private::Sealed::index(id)]
    }
}

impl<I: Id, T> FromIterator<T> for IdVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        IdVec {
            items: iter.into_iter().collect(),
            _id: PhantomData,
        }
    }
}

impl<I: Id, T> IntoIterator for IdVec<I, T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<I: Id, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter_enumerated()).finish()
    }
}

/// A list of items for each id, all in one vector: `lists[id]` is a slice. Every list lives in
/// one allocation, read in id order, rather than in a box of its own per id.
#[derive(Clone)]
pub(crate) struct IdLists<I, T> {
    /// Where each list starts in `items`; list `i` ends where list `i + 1` starts.
    starts: Vec<u32>,
    items: Vec<T>,
    _id: PhantomData<fn(I) -> I>,
}

impl<I: Id, T> IdLists<I, T> {
    /// No lists yet, with room for `lists` lists of `items` items in all.
    pub(crate) fn with_capacity(lists: usize, items: usize) -> Self {
        let mut starts = Vec::with_capacity(lists + 1);
        starts.push(0);
        IdLists {
            starts,
            items: Vec::with_capacity(items),
            _id: PhantomData,
        }
    }

    /// Adds the next id's list and returns its id.
    #[inline]
    pub(crate) fn push(&mut self, list: impl IntoIterator<Item = T>) -> I {
        let id = <I as private::Sealed>::from_index(self.starts.len() - 1);
        self.items.extend(list);
        self.starts
            .push(u32::try_from(self.items.len()).expect("fewer than 2^32 items"));
        id
    }

    /// How many lists there are.
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }
}

impl<I: Id, T> std::ops::Index<I> for IdLists<I, T> {
    type Output = [T];
    fn index(&self, id: I) -> &[T] {
        let i = private::Sealed::index(id);
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

impl<I: Id, T: fmt::Debug> fmt::Debug for IdLists<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries((0..self.len()).map(|i| {
                let id = <I as private::Sealed>::from_index(i);
                (id, &self[id])
            }))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_issued_in_push_order_and_index_only_their_vector() {
        let mut steps: IdVec<StepId, &str> = IdVec::new();
        let auth = steps.push("auth");
        let admin = steps.push("admin");
        assert_eq!(steps[auth], "auth");
        assert_eq!(steps[admin], "admin");
        assert_eq!(steps.ids().collect::<Vec<_>>(), [auth, admin]);
        assert_eq!(format!("{auth:?}"), "step#0");
    }

    #[test]
    fn lists_are_slices_by_id_empty_ones_included() {
        let mut lists: IdLists<StepId, u8> = IdLists::with_capacity(3, 3);
        let a = lists.push([1, 2]);
        let b = lists.push([]);
        let c = lists.push([3]);
        assert_eq!(
            (&lists[a], &lists[b], &lists[c]),
            (&[1, 2][..], &[][..], &[3][..])
        );
        assert_eq!(lists.len(), 3);
    }
}
