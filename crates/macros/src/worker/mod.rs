//! `#[worker]`: an `async fn` of its needs and its `Shutdown` becomes a `Worker`. The fn stays
//! as written; a companion of the same name implements `Worker` by calling it once per run,
//! and an `inventory` registration lets `discover()` find it. A worker is core's (core runs
//! workers), so a crate on green-tea-core alone declares one through core's `__private`.

mod attr;
mod emit;
mod signature;

use proc_macro2::TokenStream;
use syn::{Item, ItemFn};

use crate::errors::{self, Errors};
use crate::root::Root;
use crate::types;

/// Expands `#[worker(attr)] item` through `root`'s `__private`. On error the item is emitted
/// unchanged next to the errors.
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
            "#[worker] goes on an `async fn`, not on an impl block: write an `async fn` of its \
             needs and its `Shutdown` (for state, put it in a provider and need it), or \
             implement `Worker` yourself",
            args,
        )),
        other => Err(errors::wrong_item(
            other,
            "#[worker] goes on an `async fn`",
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
        errors.spanned(unsafety, "a worker fn cannot be `unsafe`");
    }
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            format!(
                "a worker fn must be `async`: the app runs it as a task until its shutdown is \
                 requested; write `async fn {name}(...)`"
            ),
        );
    }
    let params = signature::params(&sig.inputs, name, &mut errors);
    if let (Some(args), Some(params)) = (&args, &params) {
        let besides = if params.shutdown {
            " besides its `Shutdown`"
        } else {
            ""
        };
        if types::check_need_count(
            name,
            &params.need_args,
            &args.needs,
            ("parameter", besides),
            &mut errors,
        ) {
            types::check_need_shapes(&params.need_args, &params.needed, &args.needs, &mut errors);
        }
    }
    let error_span = errors.take(signature::output(sig));
    errors.finish()?;
    let (Some(args), Some(params), Some(error_span)) = (args, params, error_span) else {
        unreachable!("each missing part recorded an error");
    };
    Ok(emit::expand_valid(root, &item, &args, &params, error_span))
}

const GENERIC: &str = "a worker fn cannot be generic: the graph needs one concrete type per key";

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// The errors of `#[worker(attr)] item`, in order.
    fn messages(attr: TokenStream, item: TokenStream) -> Vec<String> {
        let item: ItemFn = syn::parse2(item).unwrap();
        let error = expand_fn(Root::Facade, attr::parse(attr), item)
            .err()
            .unwrap();
        error.into_iter().map(|e| e.to_string()).collect()
    }

    fn expands(attr: TokenStream, item: TokenStream) -> String {
        let item: ItemFn = syn::parse2(item).unwrap();
        match expand_fn(Root::Core, attr::parse(attr), item) {
            Ok(tokens) => tokens.to_string(),
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn a_worker_fn_expands_to_a_worker_and_its_registration() {
        let expanded = expands(
            quote!(
                needs = ["sweeps", "clock?"],
                restart = "on_failure",
                critical
            ),
            quote! {
                async fn sweeper(
                    sweeps: &u64,
                    shutdown: Shutdown,
                    clock: Option<Arc<String>>,
                ) -> Result<(), BoxError> { Ok(()) }
            },
        );
        assert!(expanded.contains("impl :: green_tea_core :: __private :: Worker for"));
        assert!(expanded.contains("Restart :: on_failure ()"), "{expanded}");
        assert!(expanded.contains(". critical ()"), "{expanded}");
        assert!(expanded.contains("Discovered :: worker"), "{expanded}");
        // The shutdown is passed where the fn takes it.
        assert!(
            expanded.contains("sweeper (__need0 , __shutdown , __need1) . await"),
            "{expanded}"
        );
        let quiet = expands(
            quote!(discover = false),
            quote!(
                async fn idle() -> Result<(), BoxError> {
                    Ok(())
                }
            ),
        );
        assert!(!quiet.contains("Discovered"), "{quiet}");
        assert!(!quiet.contains("on_failure") && !quiet.contains("critical"));
    }

    #[test]
    fn every_problem_of_the_fn_is_reported() {
        let found = messages(
            quote!(needs = "sweeps"),
            quote!(
                unsafe fn sweeper<T>(sweeps: &T, a: Shutdown, b: Shutdown) -> u32 {
                    1
                }
            ),
        );
        assert_eq!(found.len(), 5, "{found:?}");
        assert!(found[0].starts_with("a worker fn cannot be generic"));
        assert_eq!(found[1], "a worker fn cannot be `unsafe`");
        assert!(found[2].starts_with("a worker fn must be `async`"));
        assert!(found[3].starts_with("`sweeper` takes a second `Shutdown`"));
        assert!(found[4].starts_with("a worker returns `Result<(), E>`"));
        assert!(found[4].ends_with("found `u32`"), "{found:?}");
    }

    #[test]
    fn needs_are_counted_without_the_shutdown() {
        let found = messages(
            quote!(needs = ["sweeps", "clock"]),
            quote!(
                async fn sweeper(shutdown: Shutdown, sweeps: &u64) -> Result<(), BoxError> {
                    Ok(())
                }
            ),
        );
        assert_eq!(
            found,
            [
                "`sweeper` takes 1 parameter besides its `Shutdown`, but `needs` lists 2 keys: add \
                 a parameter (`Arc<T>` or `&T`) for each need, in order"
            ]
        );
        let found = messages(
            quote!(needs = "clock?"),
            quote!(
                async fn sweeper(clock: &String) -> Result<(), BoxError> {
                    Ok(())
                }
            ),
        );
        assert!(found[0].contains("take `Option<&String>`"), "{found:?}");
        let found = messages(
            quote!(),
            quote!(
                async fn sweeper(shutdown: &Shutdown) -> Result<(), BoxError> {
                    Ok(())
                }
            ),
        );
        assert!(
            found[0].starts_with("take the `Shutdown` by value"),
            "{found:?}"
        );
    }

    #[test]
    fn a_worker_returns_result_of_unit() {
        let found = messages(
            quote!(),
            quote!(
                async fn sweeper() {}
            ),
        );
        assert!(
            found[0].starts_with("`sweeper` returns nothing"),
            "{found:?}"
        );
        let found = messages(
            quote!(),
            quote!(
                async fn sweeper() -> Result<u32, BoxError> {
                    Ok(1)
                }
            ),
        );
        assert!(
            found[0].starts_with("a worker's run has no value to return"),
            "{found:?}"
        );
        // An alias of `Result` with one argument, and any error type, are the compiler's to
        // check.
        expands(
            quote!(),
            quote!(
                async fn sweeper() -> io::Result<()> {
                    Ok(())
                }
            ),
        );
        expands(
            quote!(),
            quote!(
                async fn sweeper() -> Result<(), String> {
                    Ok(())
                }
            ),
        );
    }
}
