//! Where an expansion's paths start. What applications write expands through the facade,
//! `::green_tea::__private`; `#[provider]` in a crate that depends on green-tea-core alone
//! (as `green_tea_core::provider`) expands through core's, `::green_tea_core::__private`.
//! The facade's re-exports core's, so a provider expands to the same items either way.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, quote_spanned};

/// The crate whose `__private` an expansion names.
#[derive(Clone, Copy)]
pub(crate) enum Root {
    /// `::green_tea::__private`: providers, steps and routes of applications.
    Facade,
    /// `::green_tea_core::__private`: providers of a crate that only adds providers.
    Core,
}

impl Root {
    /// The path of the `__private` module, spanned at `span` (for the tokens of a
    /// `quote_spanned!`, whose error must point there).
    pub(crate) fn at(self, span: Span) -> TokenStream {
        let name = match self {
            Root::Facade => "green_tea",
            Root::Core => "green_tea_core",
        };
        let krate = Ident::new(name, span);
        quote_spanned!(span=> ::#krate::__private)
    }
}

impl ToTokens for Root {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(self.at(Span::call_site()));
    }
}
