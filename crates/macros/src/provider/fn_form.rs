//! `#[provider]` on a `fn`: the fn stays as written, and a companion type of the same
//! name implements `Provider` by calling it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn};

use super::attr::Args;
use super::emit as provider_emit;
use super::signature;
use crate::emit::{self, Declared, FnKind};
use crate::errors::Errors;
use crate::root::Root;
use crate::types::{self, Pass, Returns};

/// Validates `item` against `args` and expands it.
pub(super) fn expand(
    root: Root,
    args: syn::Result<Args>,
    item: ItemFn,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let args = errors.take(args);
    let sig = &item.sig;

    errors.reject_generics(&sig.generics, GENERIC);
    if let Some(unsafety) = &sig.unsafety {
        errors.spanned(unsafety, "a provider fn cannot be `unsafe`");
    }
    let needed = signature::typed_params(&sig.inputs, "a provider parameter", &mut errors);
    if let (Some(args), Some(_)) = (&args, &needed) {
        let params: Vec<&FnArg> = sig.inputs.iter().collect();
        types::check_need_count(&sig.ident, &params, &args.needs, "parameter", &mut errors);
    }
    let output = errors.take(types::output(
        sig,
        args.as_ref().map(|a| a.provides.len()),
        Returns::Provider,
    ));
    errors.finish()?;
    let (Some(args), Some(needed), Some(output)) = (args, needed, output) else {
        unreachable!("each missing part recorded an error");
    };

    let name = &sig.ident;
    let name_text = name.to_string();
    let declared = Declared::new(
        root,
        &name_text,
        name.span(),
        (&args.provides, &output),
        (&args.needs, &needed),
    );
    let (fetch, pass) = emit::fetch_needs(root, &needed, &TokenStream::new());
    let unused = needed.is_empty().then(|| quote!(let _ = __needs;));
    let await_call = sig.asyncness.map(|_| quote!(.await));
    let pack = emit::pack_provided(
        root,
        &output,
        quote!(#name(#(#pass),*) #await_call),
        &provider_emit::convert(root),
    );
    let provide_body = quote!(#unused #fetch #pack);
    let dispose_body = args.dispose.as_ref().map(|dispose| {
        let provided: Vec<_> = declared
            .provides
            .iter()
            .map(|(key, ty)| (*key, *ty, Pass::Ref))
            .collect();
        let (fetch, pass) = provider_emit::fetch_provided(root, &name_text, &provided);
        let path = &dispose.path;
        // A mismatch between `dispose`'s parameters and the provided values is reported at the
        // path.
        let pass = pass
            .into_iter()
            .map(|arg| emit::located_at(arg, path.span()));
        let at = Span::call_site().located_at(path.span());
        let call = quote_spanned!(at=> #path(#(#pass),*).await);
        quote! {
            #fetch
            #root::DisposeOutput::into_dispose_result(#call)
        }
    });
    let cfgs = emit::cfgs(&item.attrs);
    let (companion, self_ty) = emit::companion(&item.vis, name, &cfgs, FnKind::Provider);
    let provider_impl =
        provider_emit::provider_impl(&self_ty, &declared, provide_body, dispose_body);
    let checked: Vec<_> = output
        .values
        .iter()
        .chain(needed.iter().map(|n| &n.ty))
        .cloned()
        .collect();
    let checks = emit::checks(root, &checked, &[], None, &[]);
    let registration = args
        .discover
        .then(|| provider_emit::registration(root, &name_text, quote!(#self_ty::provider())));
    let register = format!(".provider({name_text}::provider())");
    let declared_keys = emit::declared_keys(&declared, FnKind::Provider, &register);

    Ok(quote! {
        // `&String` is right here: the parameter's type is the key's type.
        #[allow(clippy::ptr_arg)]
        #item

        #companion

        #(#cfgs)*
        #provider_impl

        #(#cfgs)*
        #checks

        #(#cfgs)*
        #registration

        #(#cfgs)*
        const _: () = {
            #declared_keys
        };
    })
}

const GENERIC: &str = "a provider fn cannot be generic: the graph needs one concrete type per key";
