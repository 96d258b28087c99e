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

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// The expansion of `#[provider(attr)] item`, as text.
    fn expands(attr: TokenStream, item: TokenStream) -> String {
        expand(Root::Facade, attr, item).to_string()
    }

    const BUILD_TIMEOUT: &str = "fn build_timeout (& self) -> :: std :: option :: Option < :: std \
                                 :: time :: Duration > { :: std :: option :: Option :: Some (:: \
                                 std :: time :: Duration :: from_millis (90000)) }";

    #[test]
    fn a_timeout_overrides_build_timeout_in_both_forms() {
        let fn_form = expands(
            quote!(provides = "pool", timeout = "1m 30s"),
            quote!(
                async fn pool() -> u32 {
                    7
                }
            ),
        );
        assert!(fn_form.contains(BUILD_TIMEOUT), "{fn_form}");
        let impl_form = expands(
            quote!(provides = "pool", timeout = "1m 30s"),
            quote! {
                impl Pool {
                    fn provide(&self) -> u32 { 7 }
                }
            },
        );
        assert!(
            impl_form.contains("impl :: green_tea :: __private :: Provider for Pool"),
            "{impl_form}"
        );
        assert!(impl_form.contains(BUILD_TIMEOUT), "{impl_form}");
        let untimed = expands(
            quote!(provides = "pool"),
            quote!(
                fn pool() -> u32 {
                    7
                }
            ),
        );
        assert!(!untimed.contains("build_timeout"), "{untimed}");
    }
}
