//! Collects every error found in one macro input, so users see them all at once.

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// Errors gathered while validating; turned into one `syn::Error` at the end.
#[derive(Default)]
pub(crate) struct Errors {
    first: Option<syn::Error>,
    count: usize,
}

impl Errors {
    /// Records `error`.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.count += 1;
        match &mut self.first {
            Some(first) => first.combine(error),
            None => self.first = Some(error),
        }
    }

    /// How many errors were recorded so far (a combined `syn::Error` counts once).
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Records an error spanning `tokens`.
    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// The value of `result`, recording its error if it failed.
    pub(crate) fn take<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// Records `message` if `generics` declares parameters or a where clause; says whether it
    /// did.
    pub(crate) fn reject_generics(&mut self, generics: &syn::Generics, message: &str) -> bool {
        if !generics.params.is_empty() {
            self.spanned(generics, message);
        } else if let Some(where_clause) = &generics.where_clause {
            self.spanned(where_clause, message);
        } else {
            return false;
        }
        true
    }

    /// `Err` with every recorded error, if there was one.
    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.first {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// The error for an attribute on an item it does not go on, with the attribute's own errors.
pub(crate) fn wrong_item<T>(
    item: impl ToTokens,
    message: &str,
    args: syn::Result<T>,
) -> syn::Error {
    let mut error = syn::Error::new_spanned(item, message);
    if let Err(args_error) = args {
        error.combine(args_error);
    }
    error
}

/// The expansion; on error, `item` unchanged followed by the errors, so one mistake is
/// reported once instead of cascading through the item's uses.
pub(crate) fn or_item(expanded: syn::Result<TokenStream>, item: TokenStream) -> TokenStream {
    expanded.unwrap_or_else(|error| {
        let error = error.to_compile_error();
        quote!(#item #error)
    })
}
