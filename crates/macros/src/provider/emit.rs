//! The tokens both provider forms emit: the `Provider` impl, fetching provided values for
//! `dispose`, and the inventory registration.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::{LitStr, Type};

use crate::emit::{self, Convert, Declared, FnKind};
use crate::root::Root;
use crate::types::Pass;

/// How a provider's return value becomes `Result<T, BoxError>`.
pub(super) fn convert(root: Root) -> Convert {
    Convert {
        ok: quote!(#root::provide_ok),
        result: quote!(#root::provide_result),
    }
}

/// How a provider's build timeout is set, when it is not the app's.
pub(super) enum BuildTimeout {
    /// `timeout = "5s"`, in milliseconds: `build_timeout` returns it.
    Millis(u64),
    /// An `Option<Duration>` from `&self` alone: `build_timeout`'s body.
    Fixed(TokenStream),
    /// Statements reading `__needs` (a `&Needs`) and ending in an `Option<Duration>`:
    /// `build_timeout_for`'s body, where the probes' traits are in scope.
    ForNeeds(TokenStream),
}

/// `impl Provider for self_ty`, with `build_timeout` or `build_timeout_for` as `timeout` says.
/// Its futures go through a probe over everything they hold (the provider and every value),
/// which reports nothing when one of those is not `Send + Sync`, because `checks` (or, for the
/// provider itself, the `Provider: Send + Sync` bound) already reports it, once.
pub(super) fn provider_impl(
    self_ty: &TokenStream,
    declared: &Declared<'_>,
    provide_body: TokenStream,
    dispose_body: Option<TokenStream>,
    timeout: Option<BuildTimeout>,
) -> TokenStream {
    let root = declared.root;
    let descriptor = emit::descriptor_fn(declared);
    let uses = emit::probe_traits(root);
    let state = emit::state_probe(declared);
    let dispose = dispose_body.map(|body| {
        quote! {
            fn dispose(
                &self,
                __provided: &#root::Provided,
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<(), #root::BoxError>,
            > + ::std::marker::Send {
                #uses
                #state.provider_future(async move { #body })
            }
        }
    });
    let build_timeout = timeout.map(|timeout| match timeout {
        BuildTimeout::Millis(millis) => {
            let millis = Literal::u64_unsuffixed(millis);
            quote! {
                fn build_timeout(&self) -> ::std::option::Option<::std::time::Duration> {
                    ::std::option::Option::Some(::std::time::Duration::from_millis(#millis))
                }
            }
        }
        BuildTimeout::Fixed(body) => quote! {
            fn build_timeout(&self) -> ::std::option::Option<::std::time::Duration> {
                #body
            }
        },
        BuildTimeout::ForNeeds(body) => quote! {
            fn build_timeout_for(
                &self,
                __needs: &#root::Needs<'_>,
            ) -> ::std::option::Option<::std::time::Duration> {
                #uses
                #body
            }
        },
    });
    quote! {
        impl #root::Provider for #self_ty {
            #descriptor

            fn provide(
                &self,
                __needs: #root::Needs<'_>,
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<
                    #root::Provided,
                    #root::BoxError,
                >,
            > + ::std::marker::Send {
                #uses
                #state.provider_future(async move { #provide_body })
            }

            #dispose

            #build_timeout
        }
    }
}

/// `let` statements taking each provided value out of `__provided` (for `dispose`), and the
/// arguments that pass them on. A missing value is an error, not a panic.
pub(super) fn fetch_provided(
    root: Root,
    name: &str,
    provided: &[(&LitStr, &Type, Pass)],
) -> (TokenStream, Vec<TokenStream>) {
    let mut lets = TokenStream::new();
    let mut args = Vec::new();
    for (index, (key, ty, how)) in provided.iter().enumerate() {
        let var = format_ident!("__provided{}", index);
        let missing = format!(
            "`{name}` cannot dispose `{}`: it is missing from what `provide` returned",
            key.value()
        );
        let index = Literal::usize_unsuffixed(index);
        let probe = emit::probe(root, ty);
        lets.extend(quote! {
            let #var = #probe.provided(__provided, #index).ok_or_else(|| {
                #root::BoxError::from(#missing)
            })?;
        });
        args.push(emit::pass(&var, *how));
    }
    (lets, args)
}

/// The `inventory` registration that `discover()` collects: a provider's, or (`kind`) a
/// decorator's or a worker's.
pub(crate) fn registration(root: Root, name: &str, kind: FnKind, make: TokenStream) -> TokenStream {
    let discovered = match kind {
        FnKind::Decorator => quote!(decorator),
        FnKind::Worker => quote!(worker),
        FnKind::Provider | FnKind::Step => quote!(new),
    };
    quote! {
        #root::inventory::submit! {
            #root::Registration {
                name: #name,
                module: ::std::module_path!(),
                make: || #root::Discovered::#discovered(#make),
            }
        }
    }
}
