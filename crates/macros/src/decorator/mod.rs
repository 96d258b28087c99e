//! `#[decorator]`: a fn that takes the value of a key something else provides (its first
//! parameter) and returns the value consumers get in its place. Once validated, it expands as
//! a provider fn does (see `provider::fn_form`): its companion's descriptor provides the key
//! and needs it first, then its own needs; it is registered with `.decorator(...)`, and
//! `discover()` finds it as a decorator.

mod attr;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Item, ItemFn};

use crate::emit::{self, FnKind};
use crate::errors::{self, Errors};
use crate::provider::{self, ValidFn};
use crate::root::Root;
use crate::types::{self, NeedParam, Receive, Returns};

/// Expands `#[decorator(attr)] item` through `root`'s `__private`. On error the item is
/// emitted unchanged next to the errors.
pub(crate) fn expand(root: Root, attr: TokenStream, item: TokenStream) -> TokenStream {
    let Ok(parsed) = syn::parse2::<Item>(item.clone()) else {
        // Not valid Rust: the compiler reports that itself, once, on the item as written.
        return item;
    };
    let args = attr::parse(attr);
    let expanded = match parsed {
        Item::Fn(item) => expand_fn(root, args, item),
        Item::Impl(other) => Err(errors::wrong_item(
            other,
            "#[decorator] goes on a `fn` or an `async fn`, not on an impl block: write a fn \
             that takes the decorated value first (for state, put it in a provider and need it)",
            args,
        )),
        other => Err(errors::wrong_item(
            other,
            "#[decorator] goes on a `fn` or an `async fn`",
            args,
        )),
    };
    errors::or_item(expanded, item)
}

fn expand_fn(root: Root, args: syn::Result<attr::Args>, item: ItemFn) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let args = errors.take(args);
    let sig = &item.sig;
    let name = &sig.ident;
    errors.reject_generics(&sig.generics, GENERIC);
    if let Some(unsafety) = &sig.unsafety {
        errors.spanned(unsafety, "a decorator fn cannot be `unsafe`");
    }
    let mut inputs = sig.inputs.iter();
    let decorated = match inputs.next() {
        None => {
            errors.push(syn::Error::new(
                sig.paren_token.span.join(),
                format!(
                    "a decorator takes the value it decorates as its first parameter: write \
                     `fn {name}(value: &T, ...)` (or `Arc<T>`), where `T` is the decorated \
                     key's type, then one parameter per need"
                ),
            ));
            None
        }
        Some(FnArg::Receiver(receiver)) => {
            errors.spanned(
                receiver,
                "a decorator fn cannot take `self`: its first parameter is the value it \
                 decorates (`&T` or `Arc<T>`), then its needs",
            );
            None
        }
        Some(FnArg::Typed(typed)) => errors.take(types::value_param(
            &typed.ty,
            "the value a decorator decorates (its first parameter)",
        )),
    };
    let rest: Vec<&FnArg> = inputs.collect();
    let needed = provider::need_params(rest.iter().copied(), "a decorator parameter", &mut errors);
    if let (Some(args), Some(needed)) = (&args, &needed)
        && types::check_need_count(
            name,
            &rest,
            &args.needs,
            ("parameter", " after the decorated value"),
            &mut errors,
        )
    {
        types::check_need_shapes(&rest, needed, &args.needs, &mut errors);
    }
    let output = errors.take(types::output(sig, Some(1), Returns::Decorator));
    errors.finish()?;
    let (Some(args), Some(decorated), Some(needed), Some(output)) =
        (args, decorated, needed, output)
    else {
        unreachable!("each missing part recorded an error");
    };

    // It returns the type it decorates: reported at the return type, once.
    let (value, returned) = (&decorated.ty, &output.values[0]);
    let at = returned.span();
    let private = root.at(at);
    let same_type = quote_spanned! {at=>
        #private::assert_decorates::<#value, #returned>();
    };
    let cfgs = emit::cfgs(&item.attrs);
    let first = NeedParam {
        ty: decorated.ty.clone(),
        receive: Receive::One(decorated.pass),
    };
    let expanded = provider::expand_valid(
        root,
        ValidFn {
            item: &item,
            kind: FnKind::Decorator,
            provides: vec![args.decorates.clone()],
            needs: std::iter::once(args.decorates).chain(args.needs).collect(),
            needed: std::iter::once(first).chain(needed).collect(),
            output,
            after: args.after,
            when: args.when,
            dispose: None,
            timeout: args.timeout,
            discover: args.discover,
        },
    );
    Ok(quote! {
        #expanded

        #(#cfgs)*
        const _: () = {
            #[allow(dead_code)]
            fn __check() {
                #same_type
            }
        };
    })
}

const GENERIC: &str = "a decorator fn cannot be generic: the graph needs one concrete type per key";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_overrides_build_timeout() {
        let expanded = expand(
            Root::Core,
            quote!(decorates = "billing", timeout = "250ms"),
            quote!(
                fn audited(billing: &String) -> String {
                    billing.clone()
                }
            ),
        )
        .to_string();
        assert!(
            expanded.contains(
                "impl :: green_tea_core :: __private :: Provider for __green_tea_audited :: audited"
            ),
            "{expanded}"
        );
        assert!(
            expanded.contains(
                "fn build_timeout (& self) -> :: std :: option :: Option < :: std :: time :: \
                 Duration > { :: std :: option :: Option :: Some (:: std :: time :: Duration :: \
                 from_millis (250)) }"
            ),
            "{expanded}"
        );
    }
}
