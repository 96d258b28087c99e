//! A view of what a declaration needs ([`Needs`]), read by position from the values the
//! container holds (or a request's own), and what asking for the wrong one says ([`NeedError`]).

use std::sync::Arc;

use super::members::{All, ByName, Members};
use super::provided::{AnyValue, downcast};
use super::slot::Slots;
use crate::ids::{AppValue, Source};
use crate::key::{Key, KeySpec, TypeInfo};

/// The values a declaration needs, in declaration order, read by position.
///
/// Their types were checked at `build()`, so [`get`](Self::get) fails only when hand-written
/// code asks for a different type than its descriptor declared. The app hands steps and
/// providers a view of values it holds (nothing is copied); [`into_owned`](Self::into_owned)
/// makes one that outlives it.
#[derive(Clone)]
pub struct Needs<'a> {
    values: NeedValues<'a>,
}

#[derive(Clone)]
enum NeedValues<'a> {
    /// A provider's needs: other providers' values, built before it.
    App {
        specs: &'a [KeySpec],
        values: &'a [Option<AppValue>],
        slots: &'a Slots,
    },
    /// A request's: providers' values (built before its steps run) or its own.
    Request {
        specs: &'a [KeySpec],
        sources: &'a [Source],
        locals: &'a [AnyValue],
        slots: &'a Slots,
    },
    /// Taken out of the app: the specs, each need's value (`None` for an absent optional
    /// need).
    Owned(Arc<(Vec<KeySpec>, Vec<Option<AnyValue>>)>),
}

impl<'a> Needs<'a> {
    pub(crate) fn of_provider(
        specs: &'a [KeySpec],
        values: &'a [Option<AppValue>],
        slots: &'a Slots,
    ) -> Self {
        Needs {
            values: NeedValues::App {
                specs,
                values,
                slots,
            },
        }
    }

    pub(crate) fn of_request(
        specs: &'a [KeySpec],
        sources: &'a [Source],
        locals: &'a [AnyValue],
        slots: &'a Slots,
    ) -> Self {
        Needs {
            values: NeedValues::Request {
                specs,
                sources,
                locals,
                slots,
            },
        }
    }

    /// The `index`-th need as an `Arc<T>`.
    pub fn get<T: Send + Sync + 'static>(&self, index: usize) -> Result<Arc<T>, NeedError> {
        let value = self.value(index)?;
        downcast(value).ok_or_else(|| self.wrong_type::<T>(index))
    }

    /// The `index`-th need, borrowed: no `Arc` to count up and down.
    pub fn get_ref<T: Send + Sync + 'static>(&self, index: usize) -> Result<&T, NeedError> {
        let value = self.value(index)?;
        (**value)
            .downcast_ref::<T>()
            .ok_or_else(|| self.wrong_type::<T>(index))
    }

    /// The `index`-th need, an optional one (`cache?`): `None` when nothing provides it.
    ///
    /// ```
    /// use green_tea::{Container, ProviderFn};
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let container = Container::builder()
    ///     .provider(
    ///         ProviderFn::new("greeting", |needs| async move {
    ///             Ok(match needs.optional::<String>(0)? {
    ///                 Some(name) => format!("hello, {name}"),
    ///                 None => "hello".to_owned(),
    ///             })
    ///         })
    ///         .needs::<String>("name?"),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "hello");
    /// # container.close().await.unwrap(); }
    /// ```
    pub fn optional<T: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<Option<Arc<T>>, NeedError> {
        match self.get(index) {
            Err(NeedError::Absent { .. }) => Ok(None),
            got => got.map(Some),
        }
    }

    /// The same, borrowed.
    pub fn optional_ref<T: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<Option<&T>, NeedError> {
        match self.get_ref(index) {
            Err(NeedError::Absent { .. }) => Ok(None),
            got => got.map(Some),
        }
    }

    /// The `index`-th need, a list (`notifiers[]`) of `T`: every contribution, in order.
    pub fn all<T: Send + Sync + 'static>(&self, index: usize) -> Result<All<'_, T>, NeedError> {
        let value = self.value(index)?;
        Members::all(value).ok_or_else(|| self.wrong_type::<T>(index))
    }

    /// The `index`-th need, a map (`stores{}`) of `T` by name.
    pub fn by_name<T: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<ByName<'_, T>, NeedError> {
        let value = self.value(index)?;
        Members::by_name(value).ok_or_else(|| self.wrong_type::<T>(index))
    }

    /// The `index`-th need as the container holds it, for the collection that gathers it.
    pub(crate) fn any(&self, index: usize) -> Result<&AnyValue, NeedError> {
        self.value(index)
    }

    /// The need named `key` as an `Arc<T>`.
    pub fn by_key<T: Send + Sync + 'static>(&self, key: &str) -> Result<Arc<T>, NeedError> {
        let index = self
            .specs()
            .iter()
            .position(|s| s.key.as_str() == key)
            .ok_or_else(|| NeedError::NotDeclared {
                key: Key::from(key.to_owned()),
            })?;
        self.get(index)
    }

    /// How many needs there are.
    pub fn len(&self) -> usize {
        self.specs().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.specs().is_empty()
    }

    /// The same needs, holding their values: for work that outlives the call it was given
    /// to (an async closure's future, a spawned task). Clones one `Arc` per need.
    pub fn into_owned(self) -> Needs<'static> {
        if let NeedValues::Owned(owned) = self.values {
            return Needs {
                values: NeedValues::Owned(owned),
            };
        }
        let values = (0..self.len())
            .map(|i| match self.value(i) {
                Ok(value) => Ok(Some(Arc::clone(value))),
                Err(NeedError::Absent { .. }) => Ok(None),
                Err(error) => Err(error),
            })
            .collect::<Result<Vec<_>, _>>();
        let specs = self.specs().to_vec();
        // A value that is not there stays missing: the owned needs report it when read.
        let values = values.unwrap_or_default();
        Needs {
            values: NeedValues::Owned(Arc::new((specs, values))),
        }
    }

    fn specs(&self) -> &[KeySpec] {
        match &self.values {
            NeedValues::App { specs, .. } | NeedValues::Request { specs, .. } => specs,
            NeedValues::Owned(owned) => &owned.0,
        }
    }

    fn value(&self, index: usize) -> Result<&AnyValue, NeedError> {
        let specs = self.specs();
        let spec = specs.get(index).ok_or(NeedError::NoSuchNeed {
            index,
            declared: specs.len(),
        })?;
        let absent = || NeedError::Absent {
            key: spec.key.clone(),
        };
        let value = match &self.values {
            NeedValues::App { values, slots, .. } => match values[index] {
                Some(at) => slots[at.provider].value(at.index),
                None => return Err(absent()),
            },
            NeedValues::Request {
                sources,
                locals,
                slots,
                ..
            } => match sources[index] {
                Source::Absent => return Err(absent()),
                source => source_value(slots, locals, source),
            },
            NeedValues::Owned(owned) => match owned.1.get(index) {
                Some(Some(value)) => Some(value),
                Some(None) => return Err(absent()),
                None => None,
            },
        };
        value.ok_or_else(|| NeedError::Unavailable {
            key: spec.key.clone(),
        })
    }

    fn wrong_type<T: 'static>(&self, index: usize) -> NeedError {
        let spec = &self.specs()[index];
        NeedError::WrongType {
            key: spec.key.clone(),
            declared: spec.ty,
            requested: TypeInfo::of::<T>(),
        }
    }
}

impl std::fmt::Debug for Needs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys: Vec<&str> = self.specs().iter().map(|s| s.key.as_str()).collect();
        f.debug_struct("Needs").field("keys", &keys).finish()
    }
}

/// The value `source` names: a provider's, if it is built, or one of the request's `locals`.
#[inline]
pub(crate) fn source_value<'a>(
    slots: &'a Slots,
    locals: &'a [AnyValue],
    source: Source,
) -> Option<&'a AnyValue> {
    match source {
        Source::App(at) => slots[at.provider].value(at.index),
        Source::Local(local) => locals.get(local.index()),
        Source::Absent => None,
    }
}

/// GT0105: a declaration asked its [`Needs`] for something its descriptor did not declare.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum NeedError {
    /// Asked by position past the end.
    #[error("error[GT0105]: need #{index} was asked for, but only {declared} needs are declared")]
    NoSuchNeed {
        /// The position asked for.
        index: usize,
        /// How many needs the descriptor declares.
        declared: usize,
    },
    /// Asked by a key the descriptor does not list.
    #[error("error[GT0105]: `{key}` was asked for, but it is not among the declared needs")]
    NotDeclared {
        /// The key asked for.
        key: Key,
    },
    /// Asked for with a type other than the declared one.
    #[error(
        "error[GT0105]: `{key}` is declared as `{declared}` but was asked for as `{requested}`"
    )]
    WrongType {
        /// The key.
        key: Key,
        /// The type in the descriptor (and the graph).
        declared: TypeInfo,
        /// The type asked for.
        requested: TypeInfo,
    },
    /// An optional need that nothing provides, read as if it were there: read it with
    /// [`Needs::optional`].
    #[error("error[GT0105]: `{key}` is optional and nothing provides it: read it with `optional`")]
    Absent {
        /// The key, as written (`cache?`).
        key: Key,
    },
    /// The value is not there: its provider is not built (a need read outside the order the
    /// app runs things in).
    #[error("error[GT0105]: `{key}` is not available here: its provider has not been built")]
    Unavailable {
        /// The key.
        key: Key,
    },
}

impl NeedError {
    /// The error code, `"GT0105"`, with a page `docs/errors/GT0105.md`.
    pub fn code(&self) -> &'static str {
        "GT0105"
    }
}

/// As `Display`: an `unwrap()` of a need prints the readable message.
impl std::fmt::Debug for NeedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_need_error_debugs_as_its_message() {
        let error = NeedError::NoSuchNeed {
            index: 2,
            declared: 1,
        };
        assert_eq!(
            format!("{error:?}"),
            "error[GT0105]: need #2 was asked for, but only 1 needs are declared"
        );
    }
}
