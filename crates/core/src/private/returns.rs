//! What a provider's fns may return, turned into what `Provider` wants.

use crate::error::BoxError;

/// What a provider fn may return: the value itself, or a `Result` of it.
pub fn provide_ok<T>(value: T) -> Result<T, BoxError> {
    Ok(value)
}

/// Turns a fallible provider's error into a `BoxError`.
pub fn provide_result<T, E: Into<BoxError>>(result: Result<T, E>) -> Result<T, BoxError> {
    result.map_err(Into::into)
}

/// What a `dispose` may return: `()` or `Result<(), E>`.
pub trait DisposeOutput {
    /// As a `Result`.
    fn into_dispose_result(self) -> Result<(), BoxError>;
}

impl DisposeOutput for () {
    fn into_dispose_result(self) -> Result<(), BoxError> {
        Ok(())
    }
}

impl<E: Into<BoxError>> DisposeOutput for Result<(), E> {
    fn into_dispose_result(self) -> Result<(), BoxError> {
        self.map_err(Into::into)
    }
}
