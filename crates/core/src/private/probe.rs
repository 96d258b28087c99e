//! The type probe: one mistake, one error.
//!
//! `#[provider]` and `#[step]` report a provided or needed type that is not
//! `Send + Sync + 'static` once, at the type, with `check`; everywhere else the type reaches
//! the graph through a `TypeProbe`, whose methods resolve by autoref specialization to the
//! real operations when the type qualifies and to never-run stand-ins when it does not, so the
//! bad type does not also fail every line that uses it. Expansions call the probe as
//! `(&&TypeProbe::<T>::new()).op(..)` (`&&&` for `check`) with these traits in scope.
//!
//! The probe and its graph operations are the core's; the facade adds the HTTP ones (steps'
//! futures, extractors, routes) as traits of its own on the same `TypeProbe`.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::descriptor::Descriptor;
use crate::value::{All, ByName};
use crate::value::{NeedError, Needs, Provided};

/// Stands for the type `T` in an expansion; its methods come from the traits below.
pub struct TypeProbe<T: ?Sized>(PhantomData<fn() -> PhantomData<T>>);

impl<T: ?Sized> std::fmt::Debug for TypeProbe<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(std::any::type_name::<Self>())
    }
}

impl<T: ?Sized> TypeProbe<T> {
    /// The probe for `T`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        TypeProbe(PhantomData)
    }
}

/// `check` for a good graph value: nothing to report.
pub trait ValueIsSendSync {
    /// Compiles.
    fn check(&self) {}
}

impl<T: Send + Sync + 'static> ValueIsSendSync for &&TypeProbe<T> {}

/// `check` for a value that is `Sync` but not `Send`: reports exactly that.
pub trait ValueIsSync<T: ?Sized> {
    /// Fails to compile, pointing at the type: it is not `Send` (or not sized).
    fn check(&self)
    where
        T: Send + Sized,
    {
    }
}

impl<T: ?Sized + Sync + 'static> ValueIsSync<T> for &TypeProbe<T> {}

/// `check` for any other value: reports that it is not `Sync` (or not `'static`, or not
/// sized).
pub trait ValueIsAny<T: ?Sized> {
    /// Fails to compile, pointing at the type: it is not `Sync + 'static`.
    fn check(&self)
    where
        T: Sync + Sized + 'static,
    {
    }
}

impl<T: ?Sized> ValueIsAny<T> for TypeProbe<T> {}

/// The graph operations on a value of type `T: Send + Sync + 'static` (for a list or a map, `T`
/// is each contribution's type).
pub trait GraphValue<T> {
    /// `descriptor.provides::<T>(key)`.
    fn provides(&self, descriptor: Descriptor, key: &'static str) -> Descriptor;
    /// `descriptor.needs::<T>(key)`.
    fn needs(&self, descriptor: Descriptor, key: &'static str) -> Descriptor;
    /// `needs.get::<T>(index)`.
    fn need(&self, needs: &Needs<'_>, index: usize) -> Result<Arc<T>, NeedError>;
    /// `needs.get_ref::<T>(index)`.
    fn need_ref<'n>(&self, needs: &'n Needs<'_>, index: usize) -> Result<&'n T, NeedError>;
    /// `needs.optional::<T>(index)`.
    fn need_optional(&self, needs: &Needs<'_>, index: usize) -> Result<Option<Arc<T>>, NeedError>;
    /// `needs.optional_ref::<T>(index)`.
    fn need_optional_ref<'n>(
        &self,
        needs: &'n Needs<'_>,
        index: usize,
    ) -> Result<Option<&'n T>, NeedError>;
    /// `needs.all::<T>(index)`.
    fn need_all<'n>(&self, needs: &'n Needs<'_>, index: usize) -> Result<All<'n, T>, NeedError>;
    /// `needs.by_name::<T>(index)`.
    fn need_by_name<'n>(
        &self,
        needs: &'n Needs<'_>,
        index: usize,
    ) -> Result<ByName<'n, T>, NeedError>;
    /// `provided.with(value)`.
    fn with(&self, provided: Provided, value: T) -> Provided;
    /// `provided.get::<T>(index)`.
    fn provided(&self, provided: &Provided, index: usize) -> Option<Arc<T>>;
}

impl<T: Send + Sync + 'static> GraphValue<T> for &TypeProbe<T> {
    fn provides(&self, descriptor: Descriptor, key: &'static str) -> Descriptor {
        descriptor.provides::<T>(key)
    }
    fn needs(&self, descriptor: Descriptor, key: &'static str) -> Descriptor {
        descriptor.needs::<T>(key)
    }
    fn need(&self, needs: &Needs<'_>, index: usize) -> Result<Arc<T>, NeedError> {
        needs.get::<T>(index)
    }
    fn need_ref<'n>(&self, needs: &'n Needs<'_>, index: usize) -> Result<&'n T, NeedError> {
        needs.get_ref::<T>(index)
    }
    fn need_optional(&self, needs: &Needs<'_>, index: usize) -> Result<Option<Arc<T>>, NeedError> {
        needs.optional::<T>(index)
    }
    fn need_optional_ref<'n>(
        &self,
        needs: &'n Needs<'_>,
        index: usize,
    ) -> Result<Option<&'n T>, NeedError> {
        needs.optional_ref::<T>(index)
    }
    fn need_all<'n>(&self, needs: &'n Needs<'_>, index: usize) -> Result<All<'n, T>, NeedError> {
        needs.all::<T>(index)
    }
    fn need_by_name<'n>(
        &self,
        needs: &'n Needs<'_>,
        index: usize,
    ) -> Result<ByName<'n, T>, NeedError> {
        needs.by_name::<T>(index)
    }
    fn with(&self, provided: Provided, value: T) -> Provided {
        provided.with(value)
    }
    fn provided(&self, provided: &Provided, index: usize) -> Option<Arc<T>> {
        provided.get::<T>(index)
    }
}

/// Stand-ins for a value type that `check` already reported; they never run, because the
/// crate does not compile.
pub trait NotAGraphValue<T> {
    /// Never runs.
    fn provides(&self, descriptor: Descriptor, key: &'static str) -> Descriptor;
    /// Never runs.
    fn needs(&self, descriptor: Descriptor, key: &'static str) -> Descriptor;
    /// Never runs.
    fn need(&self, needs: &Needs<'_>, index: usize) -> Result<Arc<T>, NeedError>;
    /// Never runs.
    fn need_ref<'n>(&self, needs: &'n Needs<'_>, index: usize) -> Result<&'n T, NeedError>;
    /// Never runs.
    fn need_optional(&self, needs: &Needs<'_>, index: usize) -> Result<Option<Arc<T>>, NeedError>;
    /// Never runs.
    fn need_optional_ref<'n>(
        &self,
        needs: &'n Needs<'_>,
        index: usize,
    ) -> Result<Option<&'n T>, NeedError>;
    /// Never runs.
    fn need_all<'n>(&self, needs: &'n Needs<'_>, index: usize) -> Result<All<'n, T>, NeedError>;
    /// Never runs.
    fn need_by_name<'n>(
        &self,
        needs: &'n Needs<'_>,
        index: usize,
    ) -> Result<ByName<'n, T>, NeedError>;
    /// Never runs.
    fn with(&self, provided: Provided, value: T) -> Provided;
    /// Never runs.
    fn provided(&self, provided: &Provided, index: usize) -> Option<Arc<T>>;
}

const REPORTED: &str = "a type that is not `Send + Sync + 'static` fails to compile";

impl<T> NotAGraphValue<T> for TypeProbe<T> {
    fn provides(&self, _: Descriptor, _: &'static str) -> Descriptor {
        unreachable!("{REPORTED}")
    }
    fn needs(&self, _: Descriptor, _: &'static str) -> Descriptor {
        unreachable!("{REPORTED}")
    }
    fn need(&self, _: &Needs<'_>, _: usize) -> Result<Arc<T>, NeedError> {
        unreachable!("{REPORTED}")
    }
    fn need_ref<'n>(&self, _: &'n Needs<'_>, _: usize) -> Result<&'n T, NeedError> {
        unreachable!("{REPORTED}")
    }
    fn need_optional(&self, _: &Needs<'_>, _: usize) -> Result<Option<Arc<T>>, NeedError> {
        unreachable!("{REPORTED}")
    }
    fn need_optional_ref<'n>(
        &self,
        _: &'n Needs<'_>,
        _: usize,
    ) -> Result<Option<&'n T>, NeedError> {
        unreachable!("{REPORTED}")
    }
    fn need_all<'n>(&self, _: &'n Needs<'_>, _: usize) -> Result<All<'n, T>, NeedError> {
        unreachable!("{REPORTED}")
    }
    fn need_by_name<'n>(&self, _: &'n Needs<'_>, _: usize) -> Result<ByName<'n, T>, NeedError> {
        unreachable!("{REPORTED}")
    }
    fn with(&self, _: Provided, _: T) -> Provided {
        unreachable!("{REPORTED}")
    }
    fn provided(&self, _: &Provided, _: usize) -> Option<Arc<T>> {
        unreachable!("{REPORTED}")
    }
}
