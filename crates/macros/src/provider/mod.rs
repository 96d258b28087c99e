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

    #[test]
    fn a_build_timeout_method_that_reads_the_needs_becomes_build_timeout_for() {
        let expanded = expands(
            quote!(
                provides = "database",
                needs = ["databaseSettings", "metrics?"]
            ),
            quote! {
                impl DatabasePool {
                    async fn provide(
                        &self,
                        settings: &DatabaseSettings,
                        metrics: Option<Arc<Metrics>>,
                    ) -> Database { Database::open(settings, metrics) }
                    fn build_timeout(
                        &self,
                        settings: &DatabaseSettings,
                        _metrics: Option<Arc<Metrics>>,
                    ) -> Duration { settings.build_timeout }
                }
            },
        );
        let reads = "fn build_timeout_for (& self , __needs : & :: green_tea :: __private :: \
                     Needs < '_ > ,) -> :: std :: option :: Option < :: std :: time :: Duration \
                     > {";
        assert!(expanded.contains(reads), "{expanded}");
        // Each need read as `provide` reads it; one that cannot be read leaves the app's.
        for read in [
            "let __need0 = (&& :: green_tea :: __private :: TypeProbe :: < DatabaseSettings > \
             :: new ()) . need_ref (& __needs , 0) . ok () ? ;",
            "let __need1 = (&& :: green_tea :: __private :: TypeProbe :: < Metrics > :: new ()) \
             . need_optional (& __needs , 1) . ok () ? ;",
        ] {
            assert!(expanded.contains(read), "{read}\n{expanded}");
        }
        // The inherent method, not the trait's `build_timeout(&self)`.
        let call = "let __timeout : :: std :: time :: Duration = < DatabasePool > :: \
                    build_timeout (self , __need0 , __need1) ; :: std :: option :: Option :: \
                    Some (__timeout) }";
        assert!(expanded.contains(call), "{expanded}");
        assert!(
            !expanded.contains("fn build_timeout (& self) ->"),
            "{expanded}"
        );
        // Its `&String`s, if any, are the keys' types, as `provide`'s are.
        assert!(
            expanded.contains("# [allow (clippy :: ptr_arg)] fn build_timeout (& self ,"),
            "{expanded}"
        );
    }

    #[test]
    fn a_build_timeout_method_without_needs_becomes_build_timeout() {
        let expanded = expands(
            quote!(provides = "pool", needs = "url"),
            quote! {
                impl Pool {
                    fn provide(&self, url: &String) -> u32 { 7 }
                    fn build_timeout(&self) -> std::time::Duration { self.timeout }
                }
            },
        );
        let fixed = "fn build_timeout (& self) -> :: std :: option :: Option < :: std :: time :: \
                     Duration > { let __timeout : :: std :: time :: Duration = < Pool > :: \
                     build_timeout (self ,) ; :: std :: option :: Option :: Some (__timeout) }";
        assert!(expanded.contains(fixed), "{expanded}");
        assert!(!expanded.contains("build_timeout_for"), "{expanded}");
    }

    /// The messages of `#[provider(attr)]` on the impl block `item`, which must not expand.
    fn impl_errors(attr: TokenStream, item: TokenStream) -> Vec<String> {
        let item = syn::parse2(item).unwrap();
        let Err(error) = impl_form::expand(Root::Facade, attr::parse(attr), item) else {
            panic!("expanded");
        };
        error.into_iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn a_build_timeout_method_is_plain_and_takes_provide_s_needs_or_none() {
        let same = "`build_timeout` takes the same needs as `provide` (the same parameter \
                    types, in the same order), or none after `&self`";
        let not_async = "`build_timeout` cannot be async: it is asked before each build, once \
                         its needs are built; make it a plain `fn` that returns a `Duration`";
        assert_eq!(
            impl_errors(
                quote!(provides = "pool", needs = "settings"),
                quote! {
                    impl Pool {
                        fn provide(&self, s: &Settings) -> u32 { 7 }
                        async fn build_timeout(&self, s: &Settings) -> Duration { s.timeout }
                    }
                },
            ),
            [not_async]
        );
        assert_eq!(
            impl_errors(
                quote!(provides = "pool", needs = ["settings", "url"]),
                quote! {
                    impl Pool {
                        fn provide(&self, s: &Settings, url: &String) -> u32 { 7 }
                        fn build_timeout(&self, s: &Settings) -> Duration { s.timeout }
                    }
                },
            ),
            [format!(
                "`build_timeout` takes 1 parameter after `&self`, and `provide` takes 2 \
                 parameters: {same}"
            )]
        );
        let differing = impl_errors(
            quote!(provides = "pool", needs = ["settings", "url"]),
            quote! {
                impl Pool {
                    fn provide(&self, s: &Settings, url: &String) -> u32 { 7 }
                    fn build_timeout(&self, s: Arc<Settings>, url: &'static str) -> Duration {
                        s.timeout
                    }
                }
            },
        );
        let takes = |theirs, provides| {
            format!(
                "`build_timeout` takes `{theirs}` here, where `provide` takes `{provides}`: {same}"
            )
        };
        assert_eq!(
            differing,
            [
                takes("Arc<Settings>", "&Settings"),
                takes("&'static str", "&String")
            ]
        );
        let both = "`timeout = ...` and `fn build_timeout` both set this provider's build \
                    timeout; keep one";
        assert_eq!(
            impl_errors(
                quote!(provides = "pool", timeout = "5s"),
                quote! {
                    impl Pool {
                        fn provide(&self) -> u32 { 7 }
                        fn build_timeout(&self) -> Duration { self.timeout }
                    }
                },
            ),
            [both]
        );
        let returns = "`build_timeout` returns how long one build of this provider may take: \
                       add `-> std::time::Duration`";
        assert_eq!(
            impl_errors(
                quote!(provides = "pool"),
                quote! {
                    impl Pool {
                        fn provide(&self) -> u32 { 7 }
                        fn build_timeout(&self) {}
                    }
                },
            ),
            [returns]
        );
        let takes_self = "`build_timeout` must take `&self` first, then nothing or the same \
                          needs as `provide`";
        assert_eq!(
            impl_errors(
                quote!(provides = "pool"),
                quote! {
                    impl Pool {
                        fn provide(&self) -> u32 { 7 }
                        fn build_timeout() -> Duration { Duration::from_secs(1) }
                    }
                },
            ),
            [takes_self]
        );
        assert_eq!(
            impl_errors(
                quote!(provides = "pool"),
                quote! {
                    impl Pool {
                        fn provide(&self) -> u32 { 7 }
                        fn build_timeout<T>(&self) -> Duration { Duration::from_secs(1) }
                    }
                },
            ),
            ["`build_timeout` cannot be generic"]
        );
    }
}
