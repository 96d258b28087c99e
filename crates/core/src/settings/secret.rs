//! `Secret<T>`: a setting that is never shown.

use std::fmt;

use serde::{Deserialize, Deserializer};

/// A value that prints as `***` in `Debug` and `Display`, and that problems and `explain` show
/// as `***`: a token, a password. [`expose`](Self::expose) reads it.
///
/// A settings field of this type is secret by its type; it deserializes as `T` does.
///
/// ```
/// use green_tea::settings::Secret;
/// let token = Secret::new(String::from("s3cr3t"));
/// assert_eq!(format!("{token:?} {token}"), "*** ***");
/// assert_eq!(token.expose(), "s3cr3t");
/// assert_eq!(token.into_inner(), "s3cr3t");
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    /// Wraps `value`.
    pub const fn new(value: T) -> Self {
        Secret(value)
    }

    /// The value itself: the one way to read it.
    pub fn expose(&self) -> &T {
        &self.0
    }

    /// The value, unwrapped.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> From<T> for Secret<T> {
    fn from(value: T) -> Self {
        Secret(value)
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl<T> fmt::Display for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Secret<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Secret)
    }
}
