//! The tokens of a valid worker fn: the fn as written, its companion, the companion's `Worker`
//! impl (descriptor, options, a run that fetches the needs and calls the fn), the checks of its
//! needs' types and its registration for `discover()`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{Ident, ItemFn};

use super::attr::{Args, Restart};
use super::signature::{Param, Params};
use crate::emit::{self, Declared, FnKind};
use crate::provider;
use crate::root::Root;

/// Expands a validated worker fn; `error_span` is where its error type is reported.
pub(super) fn expand_valid(
    root: Root,
    item: &ItemFn,
    args: &Args,
    params: &Params<'_>,
    error_span: Span,
) -> TokenStream {
    let name = &item.sig.ident;
    let name_text = name.to_string();
    let declared = Declared {
        root,
        name: &name_text,
        location: name.span(),
        provides: Vec::new(),
        needs: args
            .needs
            .iter()
            .zip(params.needed.iter().map(|n| &n.ty))
            .collect(),
        after: &[],
        when: &args.when,
    };
    let cfgs = emit::cfgs(&item.attrs);
    let (companion, self_ty) = emit::companion(&item.vis, name, &cfgs, FnKind::Worker);
    let worker_impl = worker_impl(&self_ty, name, &declared, (args, params), error_span);
    let needed: Vec<_> = params.needed.iter().map(|n| n.ty.clone()).collect();
    let checks = emit::checks(root, &needed, &[], None, &[]);
    let constructor = Ident::new("worker", Span::call_site());
    let registration = args.discover.then(|| {
        provider::registration(
            root,
            &name_text,
            FnKind::Worker,
            quote!(#self_ty::#constructor()),
        )
    });
    quote! {
        // `&String` is right here: the parameter's type is the key's type.
        #[allow(clippy::ptr_arg)]
        #item

        #companion

        #(#cfgs)*
        #worker_impl

        #(#cfgs)*
        #checks

        #(#cfgs)*
        #registration
    }
}

/// `impl Worker for self_ty`. Its run's future goes through a probe over everything it holds,
/// which reports nothing when a need is not `Send + Sync`: `checks` reports it, once.
fn worker_impl(
    self_ty: &TokenStream,
    name: &Ident,
    declared: &Declared<'_>,
    (args, params): (&Args, &Params<'_>),
    error_span: Span,
) -> TokenStream {
    let root = declared.root;
    let descriptor = emit::descriptor_fn(declared);
    let uses = emit::probe_traits(root);
    let state = emit::state_probe(declared);
    let (fetch, needs) = emit::fetch_needs(root, &params.needed, &TokenStream::new());
    let mut needs = needs.into_iter();
    let call_args = params.order.iter().map(|param| match param {
        Param::Need => needs.next().expect("one fetched need per need parameter"),
        Param::Shutdown => quote!(__shutdown),
    });
    let call = quote!(#name(#(#call_args),*).await);
    // Both spanned at the error type, so that one that is no `BoxError` is reported there
    // (`located_at` keeps the local variable's hygiene).
    let at_error = Span::call_site().located_at(error_span);
    let convert = emit::located_at(quote!(#root::provide_result), at_error);
    let returned = quote_spanned!(at_error=> __returned);
    let restart = (args.restart == Restart::OnFailure)
        .then(|| quote!(.restart(#root::Restart::on_failure())));
    let critical = args.critical.then(|| quote!(.critical()));
    quote! {
        impl #root::Worker for #self_ty {
            #descriptor

            fn options(&self) -> #root::WorkerOptions {
                #root::WorkerOptions::default() #restart #critical
            }

            fn run(
                &self,
                __needs: #root::Needs<'static>,
                __shutdown: #root::Shutdown,
            ) -> #root::WorkerFuture {
                #uses
                ::std::boxed::Box::pin(#state.provider_future(async move {
                    #fetch
                    let #returned = #call;
                    #convert(#returned)
                }))
            }
        }
    }
}
