//! What `#[derive(Settings)]` needs of a `nested` field: its type's fields and reading it,
//! through a probe, so that a type that is not a settings type is reported once, at the
//! field's type (`assert_nested`), and not again at each of its uses.

use std::marker::PhantomData;

use crate::settings::{FieldSpec, Reader, Settings};

/// Stands for the type of a `nested` field. `(&&NestedProbe::<T>::new()).read(..)` is the
/// [`Nested`] method for a settings type, and [`NotNested`]'s (which reads nothing) for any
/// other, whose error `assert_nested` reports.
#[derive(Debug)]
pub struct NestedProbe<T>(PhantomData<fn() -> T>);

impl<T> NestedProbe<T> {
    /// The probe of `T`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        NestedProbe(PhantomData)
    }
}

/// A `nested` field of a settings type.
pub trait Nested<T> {
    /// `T`'s fields.
    fn fields(&self) -> fn() -> Vec<FieldSpec>;
    /// Reads the field `field` as `T`.
    fn read(&self, reader: &mut Reader<'_>, field: &'static str) -> Option<T>;
}

impl<T: Settings> Nested<T> for &NestedProbe<T> {
    fn fields(&self) -> fn() -> Vec<FieldSpec> {
        T::fields
    }

    fn read(&self, reader: &mut Reader<'_>, field: &'static str) -> Option<T> {
        reader.nested::<T>(field)
    }
}

/// A `nested` field of any other type: never run, since `assert_nested` fails to compile.
pub trait NotNested<T> {
    /// Nothing.
    fn fields(&self) -> fn() -> Vec<FieldSpec>;
    /// Nothing.
    fn read(&self, reader: &mut Reader<'_>, field: &'static str) -> Option<T>;
}

impl<T> NotNested<T> for NestedProbe<T> {
    fn fields(&self) -> fn() -> Vec<FieldSpec> {
        Vec::new
    }

    fn read(&self, _: &mut Reader<'_>, _: &'static str) -> Option<T> {
        None
    }
}

/// Implemented by every settings type: the bound that reports a `nested` field of another
/// type, at its type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a settings type, so a field of it cannot be `nested`",
    label = "a `nested` field is a settings type of its own",
    note = "derive it: `#[derive(Settings)]` on `{Self}`, without `provides` and `prefix` for a \
            type only nested in another; or drop `nested` to read the field as one value"
)]
pub trait NestedSettings {}

impl<T: Settings> NestedSettings for T {}

/// Fails to compile, at a `nested` field's type, unless it is a settings type.
pub fn assert_nested<T: NestedSettings>() {}
