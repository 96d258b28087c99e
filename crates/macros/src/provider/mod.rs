//! `#[provider]`: parses the attribute and the item, validates both, and expands to a
//! `Provider` impl plus an `inventory` registration. All graph logic stays in `core`.

mod attr;
mod emit;
mod fn_form;
mod impl_form;
mod signature;

pub(crate) use emit::registration;
pub(crate) use fn_form::{ValidFn, expand_valid};
pub(crate) use signature::need_params;

use proc_macro2::TokenStream;
use syn::Item;

use crate::errors;
use crate::root::Root;

/// Expands `#[provider(attr)] item` through `root`'s `__private`. On error the item is emitted
/// unchanged next to the errors, so one mistake is reported once instead of cascading through
/// its uses.
pub(crate) fn expand(root: Root, attr: TokenStream, item: TokenStream) -> TokenStream {
    let Ok(parsed) = syn::parse2::<Item>(item.clone()) else {
        // Not valid Rust: the compiler reports that itself, once, on the item as written.
        return item;
    };
    let args = attr::parse(attr);
    let expanded = match parsed {
        Item::Fn(item) => fn_form::expand(root, args, item),
        Item::Impl(item) => impl_form::expand(root, args, item),
        other => Err(errors::wrong_item(
            other,
            "#[provider] goes on a `fn`, an `async fn` or an `impl` block",
            args,
        )),
    };
    errors::or_item(expanded, item)
}
