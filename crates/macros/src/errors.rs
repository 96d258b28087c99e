//! Collects every error found in one macro input, so users see them all at once.

use std::fmt::Display;

use quote::ToTokens;

/// Errors gathered while validating; turned into one `syn::Error` at the end.
#[derive(Default)]
pub(crate) struct Errors {
    first: Option<syn::Error>,
}

impl Errors {
    /// Records `error`.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.first {
            Some(first) => first.combine(error),
            None => self.first = Some(error),
        }
    }

    /// Records an error spanning `tokens`.
    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// The value of `result`, recording its error if it failed.
    pub(crate) fn take<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// `Err` with every recorded error, if there was one.
    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.first {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
