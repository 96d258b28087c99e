//! `#[provider]`: parses the attribute and the item, validates both, and expands to a
//! `Provider` impl plus an `inventory` registration. All graph logic stays in `core`.

mod attr;
mod emit;
mod fn_form;
mod impl_form;
mod signature;

use proc_macro2::TokenStream;
use quote::quote;
use syn::Item;

/// Expands `#[provider(attr)] item`. On error the item is emitted unchanged next to the
/// errors, so one mistake is reported once instead of cascading through its uses.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let Ok(parsed) = syn::parse2::<Item>(item.clone()) else {
        // Not valid Rust: the compiler reports that itself, once, on the item as written.
        return item;
    };
    let args = attr::parse(attr);
    let expanded = match parsed {
        Item::Fn(item) => fn_form::expand(args, item),
        Item::Impl(item) => impl_form::expand(args, item),
        other => {
            let mut error = syn::Error::new_spanned(
                other,
                "#[provider] goes on a `fn`, an `async fn` or an `impl` block",
            );
            if let Err(args_error) = args {
                error.combine(args_error);
            }
            Err(error)
        }
    };
    expanded.unwrap_or_else(|error| {
        let error = error.to_compile_error();
        quote!(#item #error)
    })
}
