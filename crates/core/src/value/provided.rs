//! What a declaration provides ([`Provided`]): its values, type-erased ([`AnyValue`]).

use std::any::Any;
use std::sync::Arc;

use crate::key::KeySpec;

/// A built value, type-erased. The concrete type behind it is the key's declared type `T`, so
/// handing it out is an `Arc` clone and a `TypeId` comparison.
pub type AnyValue = Arc<dyn Any + Send + Sync>;

pub(crate) fn downcast<T: Send + Sync + 'static>(value: &AnyValue) -> Option<Arc<T>> {
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

    /// The first value, type-erased (a ready value's, for a switch to decide from).
    pub(crate) fn first(&self) -> Option<&(dyn Any + Send + Sync)> {
        self.values.as_slice().first().map(|v| &**v)
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

/// Whether `value` is of the type `spec` declares (the one test of `check_against` and its
/// message).
#[inline]
fn is_of(value: &AnyValue, spec: &KeySpec) -> bool {
    (**value).type_id() == spec.ty.id()
}

#[cfg(test)]
mod tests {
    use super::*;

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
