//! Type-erased values as they travel through the graph: what a provider needs and provides.

use std::any::Any;
use std::sync::Arc;

use crate::key::{Key, KeySpec, TypeInfo};

/// A built value, type-erased. The concrete type behind it is the key's declared type `T`, so
/// handing it out is an `Arc` clone and a `TypeId` comparison.
pub(crate) type AnyValue = Arc<dyn Any + Send + Sync>;

pub(crate) fn downcast<T: Send + Sync + 'static>(value: &AnyValue) -> Option<Arc<T>> {
    Arc::clone(value).downcast::<T>().ok()
}

/// What a provider returns: one value per key it declared, in declaration order.
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

/// Most providers and steps provide one value: keep it inline rather than in a `Vec`, which
/// saves an allocation per step per request.
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
        Provided {
            values: Values::default(),
        }
    }

    /// A single value.
    pub fn one<T: Send + Sync + 'static>(value: T) -> Self {
        // Directly, not through `with`: steps make one of these on every request.
        Provided {
            values: Values::One(Arc::new(value)),
        }
    }

    /// Adds the value for the next declared key.
    pub fn with<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.with_arc(Arc::new(value))
    }

    /// Adds a value that is already in an `Arc` (no second allocation).
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

    /// Appends the values, type-erased and in order, to `out` (for layers that store them,
    /// like the HTTP steps).
    pub fn append_to(self, out: &mut impl Extend<Arc<dyn Any + Send + Sync>>) {
        match self.values {
            Values::One(value) => out.extend([value]),
            Values::Many(values) => out.extend(values),
        }
    }

    /// Checks that these are one value per spec, each of the spec's type; says what differs.
    /// A hand-written provider or step could return anything; the graph relies on this.
    pub fn check_against(&self, specs: &[KeySpec]) -> Result<(), String> {
        let values = self.values.as_slice();
        if values.len() != specs.len() {
            return Err(format!(
                "{} value(s), but its descriptor declares {}",
                values.len(),
                specs.len()
            ));
        }
        for (value, spec) in values.iter().zip(specs) {
            if (**value).type_id() != spec.ty.id() {
                return Err(format!(
                    "a value of another type than `{}` for `{}`",
                    spec.ty, spec.key
                ));
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for Provided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provided")
            .field("len", &self.len())
            .finish()
    }
}

/// The values a provider declared it needs, resolved and in declaration order.
///
/// Their types were checked at `build()`, so [`get`](Self::get) fails only when a hand-written
/// provider asks for a different type than its descriptor declared.
pub struct Needs {
    specs: Arc<[KeySpec]>,
    values: Vec<AnyValue>,
}

impl Needs {
    /// Needs from their declared specs and the resolved values, in the same order. The
    /// container makes these for providers; the HTTP layer makes them for steps.
    ///
    /// # Panics
    ///
    /// If the two lists differ in length.
    pub fn new(specs: Arc<[KeySpec]>, values: Vec<Arc<dyn Any + Send + Sync>>) -> Self {
        assert_eq!(specs.len(), values.len(), "one value per declared need");
        Needs { specs, values }
    }

    /// The `index`-th need as a `T`.
    pub fn get<T: Send + Sync + 'static>(&self, index: usize) -> Result<Arc<T>, NeedError> {
        let spec = self.specs.get(index).ok_or(NeedError::NoSuchNeed {
            index,
            declared: self.specs.len(),
        })?;
        downcast(&self.values[index]).ok_or_else(|| NeedError::WrongType {
            key: spec.key.clone(),
            declared: spec.ty,
            requested: TypeInfo::of::<T>(),
        })
    }

    /// The need named `key` as a `T`.
    pub fn by_key<T: Send + Sync + 'static>(&self, key: &str) -> Result<Arc<T>, NeedError> {
        let index = self
            .specs
            .iter()
            .position(|s| s.key.as_str() == key)
            .ok_or_else(|| NeedError::NotDeclared {
                key: Key::from(key.to_owned()),
            })?;
        self.get(index)
    }

    /// How many needs there are.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A provider asked its [`Needs`] for something its descriptor did not declare.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NeedError {
    /// Asked by position past the end.
    #[error("need #{index} was asked for, but only {declared} needs are declared")]
    NoSuchNeed {
        /// The position asked for.
        index: usize,
        /// How many needs the descriptor declares.
        declared: usize,
    },
    /// Asked by a key the descriptor does not list.
    #[error("`{key}` was asked for, but it is not among the declared needs")]
    NotDeclared {
        /// The key asked for.
        key: Key,
    },
    /// Asked for with a type other than the declared one.
    #[error("`{key}` is declared as `{declared}` but was asked for as `{requested}`")]
    WrongType {
        /// The key.
        key: Key,
        /// The type in the descriptor (and the graph).
        declared: TypeInfo,
        /// The type asked for.
        requested: TypeInfo,
    },
}
