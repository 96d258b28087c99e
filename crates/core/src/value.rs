//! Values as they travel through the graph: what a declaration provides ([`Provided`]) and a
//! view of what it needs ([`Needs`]).

use std::any::Any;
use std::sync::Arc;

use crate::collection::{All, ByName, Members};
use crate::container::Inner;
use crate::ids::{AppValue, Source};
use crate::key::{Key, KeySpec, TypeInfo};

/// A built value, type-erased. The concrete type behind it is the key's declared type `T`, so
/// handing it out is an `Arc` clone and a `TypeId` comparison.
pub type AnyValue = Arc<dyn Any + Send + Sync>;

fn downcast<T: Send + Sync + 'static>(value: &AnyValue) -> Option<Arc<T>> {
    Arc::clone(value).downcast::<T>().ok()
}

/// What a provider or a step returns: one value per key it declared, in declaration order.
///
/// ```
/// use green_tea::Provided;
/// let provided = Provided::new().with(String::from("client")).with(3_u32);
/// assert_eq!(provided.len(), 2);
/// assert_eq!(*provided.get::<u32>(1).unwrap(), 3);
/// assert!(provided.get::<u32>(0).is_none()); // wrong type
/// ```
#[derive(Clone, Default)]
pub struct Provided {
    values: Values,
}

/// Most declarations provide one value: keep it inline rather than in a `Vec`, which saves an
/// allocation per step per request.
#[derive(Clone)]
enum Values {
    One(AnyValue),
    Many(Vec<AnyValue>),
}

impl Default for Values {
    fn default() -> Self {
        Values::Many(Vec::new())
    }
}

impl Values {
    fn as_slice(&self) -> &[AnyValue] {
        match self {
            Values::One(value) => std::slice::from_ref(value),
            Values::Many(values) => values,
        }
    }
}

impl Provided {
    /// Nothing yet; add values with [`with`](Self::with) in the order the keys were declared.
    pub fn new() -> Self {
        Provided::default()
    }

    /// A single value.
    pub fn one<T: Send + Sync + 'static>(value: T) -> Self {
        Provided {
            values: Values::One(Arc::new(value)),
        }
    }

    /// Adds the value for the next declared key.
    #[inline]
    pub fn with<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.with_arc(Arc::new(value))
    }

    /// Adds a value that is already in an `Arc` (no second allocation).
    #[inline]
    pub fn with_arc<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.values = match self.values {
            Values::Many(values) if values.is_empty() => Values::One(value),
            Values::One(first) => Values::Many(vec![first, value]),
            Values::Many(mut values) => {
                values.push(value);
                Values::Many(values)
            }
        };
        self
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.values.as_slice().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.as_slice().is_empty()
    }

    /// The value at `index` (declaration order), if it is a `T`.
    ///
    /// `dispose` uses this to reach what its provider handed out.
    pub fn get<T: Send + Sync + 'static>(&self, index: usize) -> Option<Arc<T>> {
        self.values.as_slice().get(index).and_then(downcast)
    }

    pub(crate) fn values(&self) -> &[AnyValue] {
        self.values.as_slice()
    }

    /// Hands the values, in order, to `push`. (A push per value rather than `Extend`: for
    /// the usual one value, extending a `SmallVec` reserves and loops for it.)
    #[inline]
    pub(crate) fn append_to(self, mut push: impl FnMut(AnyValue)) {
        match self.values {
            Values::One(value) => push(value),
            Values::Many(values) => values.into_iter().for_each(push),
        }
    }

    /// Checks that these are one value per spec, each of the spec's type; says what differs.
    /// A hand-written provider or step could return anything; the graph relies on this.
    // Inlined: a step's values are checked on every request. A mismatch (a hand-written step
    // that returns other values than it declares) is rare, so its message is built out of line.
    #[inline]
    pub(crate) fn check_against(&self, specs: &[KeySpec]) -> Result<(), String> {
        let values = self.values.as_slice();
        let all_match = values.len() == specs.len()
            && values
                .iter()
                .zip(specs)
                .all(|(value, spec)| is_of(value, spec));
        if all_match {
            Ok(())
        } else {
            Err(self.mismatch(specs))
        }
    }

    /// What `check_against` found unlike `specs` (called only when it found something).
    #[cold]
    fn mismatch(&self, specs: &[KeySpec]) -> String {
        let values = self.values.as_slice();
        if values.len() != specs.len() {
            return format!(
                "{} value(s), but its descriptor declares {}",
                values.len(),
                specs.len()
            );
        }
        let (_, spec) = values
            .iter()
            .zip(specs)
            .find(|(value, spec)| !is_of(value, spec))
            .expect("called only when a value is unlike its spec");
        format!(
            "a value of another type than `{}` for `{}`",
            spec.ty, spec.key
        )
    }
}

impl std::fmt::Debug for Provided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provided")
            .field("len", &self.len())
            .finish()
    }
}

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
        container: &'a Inner,
    },
    /// A request's: providers' values (built before its steps run) or its own.
    Request {
        specs: &'a [KeySpec],
        sources: &'a [Source],
        locals: &'a [AnyValue],
        container: &'a Inner,
    },
    /// Taken out of the app: the specs, each need's value (`None` for an absent optional
    /// need).
    Owned(Arc<(Vec<KeySpec>, Vec<Option<AnyValue>>)>),
}

impl<'a> Needs<'a> {
    pub(crate) fn of_provider(
        specs: &'a [KeySpec],
        values: &'a [Option<AppValue>],
        container: &'a Inner,
    ) -> Self {
        Needs {
            values: NeedValues::App {
                specs,
                values,
                container,
            },
        }
    }

    pub(crate) fn of_request(
        specs: &'a [KeySpec],
        sources: &'a [Source],
        locals: &'a [AnyValue],
        container: &'a Inner,
    ) -> Self {
        Needs {
            values: NeedValues::Request {
                specs,
                sources,
                locals,
                container,
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
            NeedValues::App {
                values, container, ..
            } => match values[index] {
                Some(at) => container.value(at),
                None => return Err(absent()),
            },
            NeedValues::Request {
                sources,
                locals,
                container,
                ..
            } => match sources[index] {
                Source::Absent => return Err(absent()),
                source => source_value(container, locals, source),
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

/// Whether `value` is of the type `spec` declares (the one test of `check_against` and its
/// message).
#[inline]
fn is_of(value: &AnyValue, spec: &KeySpec) -> bool {
    (**value).type_id() == spec.ty.id()
}

/// The value `source` names: a provider's, if it is built, or one of the request's `locals`.
#[inline]
pub(crate) fn source_value<'a>(
    container: &'a Inner,
    locals: &'a [AnyValue],
    source: Source,
) -> Option<&'a AnyValue> {
    match source {
        Source::App(at) => container.value(at),
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

    #[test]
    fn values_that_match_their_specs_pass_the_check() {
        let provided = Provided::one(7_u32).with(String::from("id"));
        let specs = [KeySpec::of::<u32>("count"), KeySpec::of::<String>("id")];
        assert_eq!(provided.check_against(&specs), Ok(()));
    }

    #[test]
    fn too_few_values_are_named_by_count() {
        let provided = Provided::one(7_u32);
        let specs = [KeySpec::of::<u32>("count"), KeySpec::of::<String>("id")];
        assert_eq!(
            provided.check_against(&specs),
            Err("1 value(s), but its descriptor declares 2".to_owned())
        );
    }

    #[test]
    fn a_value_of_another_type_is_named_by_its_key() {
        let provided = Provided::one(7_u32).with(7_u64);
        let specs = [KeySpec::of::<u32>("count"), KeySpec::of::<String>("id")];
        assert_eq!(
            provided.check_against(&specs),
            Err("a value of another type than `String` for `id`".to_owned())
        );
    }
}
