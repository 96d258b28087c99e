//! `#[provider]` on an `impl` block: the block stays as written, and a `Provider` impl
//! delegates to its `provide` (and `dispose`) methods. Registering the struct takes any value
//! of it; only discovery makes one, with `fn new()` or `Default`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, Receiver, Signature, Type};

use super::attr::Args;
use super::emit as provider_emit;
use super::signature;
use crate::emit::{self, Declared, FnKind};
use crate::errors::Errors;
use crate::root::Root;
use crate::types::{self, Returns, ValueParam, plural};

/// Validates `item` against `args` and expands it.
pub(super) fn expand(
    root: Root,
    args: syn::Result<Args>,
    item: ItemImpl,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let args = errors.take(args);
    if let Some(dispose) = args.as_ref().and_then(|a| a.dispose.as_ref()) {
        let (key, path) = (&dispose.key, &dispose.path);
        errors.spanned(
            quote!(#key = #path),
            "`dispose = ...` is for provider fns; in an impl block, write the method \
             `async fn dispose(&self, ...)` in the block instead",
        );
    }
    if let Some((_, trait_path, _)) = &item.trait_ {
        errors.spanned(
            trait_path,
            "#[provider] goes on an inherent impl block, like `impl BillingApi { ... }`, \
             not on a trait impl",
        );
    }
    if !item.generics.params.is_empty() {
        errors.spanned(&item.generics, GENERIC_IMPL);
    } else if let Some(where_clause) = &item.generics.where_clause {
        errors.spanned(where_clause, GENERIC_IMPL);
    }
    let self_ty = &*item.self_ty;
    let name = match self_ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last().map(|s| &s.ident),
        _ => None,
    };
    if name.is_none() {
        errors.spanned(
            self_ty,
            "#[provider] goes on the impl block of a named type",
        );
    }

    let provide = method(&item, "provide");
    let mut needed = None;
    let mut output = None;
    match provide {
        None => errors.spanned(
            self_ty,
            format!(
                "`{}` has no `provide` method: add `async fn provide(&self, ...) -> T` to this \
                 block; its parameters after `&self` are the needs (`Arc<T>` or `&T`)",
                quote!(#self_ty).to_string().replace(' ', "")
            ),
        ),
        Some(provide) => {
            let params = after_self(&provide.sig, &mut errors);
            if let Some(params) = &params {
                needed = signature::need_params(
                    params.iter().copied(),
                    "a provider parameter",
                    &mut errors,
                );
                if let (Some(args), Some(needed)) = (&args, &needed)
                    && types::check_need_count(
                        &provide.sig.ident,
                        params,
                        &args.needs,
                        ("parameter", ""),
                        &mut errors,
                    )
                {
                    types::check_need_shapes(params, needed, &args.needs, &mut errors);
                }
            }
            output = errors.take(types::output(
                &provide.sig,
                args.as_ref().map(|a| a.provides.len()),
                Returns::Provider,
            ));
        }
    }
    let dispose = method(&item, "dispose").and_then(|method| {
        let params = after_self(&method.sig, &mut errors)?;
        let values =
            signature::typed_params(params.iter().copied(), "a dispose parameter", &mut errors)?;
        let provides = args.as_ref()?.provides.len();
        if !values.is_empty() && values.len() != provides {
            errors.spanned(
                quote!(#(#params),*),
                format!(
                    "`dispose` takes {} after `&self`, but this provider provides {}: \
                     take none, or every provided value in order (`&T` or `Arc<T>`)",
                    plural(values.len(), "value"),
                    plural(provides, "value"),
                ),
            );
            return None;
        }
        Some(DisposeMethod {
            method,
            params,
            values,
        })
    });
    // How `discover()` makes the struct: with its `fn new()`, else with `Default` (which the
    // struct may lack: then `Discoverable` says so at the block, and `discover = false`
    // leaves it out of discovery). The `Provider` impl never needs either.
    let discover = args.as_ref().is_none_or(|a| a.discover);
    let new = method(&item, "new").filter(|new| new.sig.inputs.is_empty());
    if let Some(new) = new
        && discover
        && new.sig.asyncness.is_some()
    {
        errors.spanned(
            &new.sig,
            "`new` makes the provider when `discover()` registers it, so it cannot be async: \
             build async resources in `provide` (or write `discover = false` and register a \
             provider you made)",
        );
    }
    errors.finish()?;
    let (Some(args), Some(name), Some(provide), Some(needed), Some(output)) =
        (args, name, provide, needed, output)
    else {
        unreachable!("each missing part recorded an error");
    };

    let name_text = name.to_string();
    let declared = Declared::new(
        root,
        &name_text,
        self_ty.span(),
        (&args.provides, &output),
        (&args.needs, &needed),
    )
    .after(&args.after)
    .when(&args.when);
    let (fetch, pass) = emit::fetch_needs(root, &needed, &TokenStream::new());
    let unused = needed.is_empty().then(|| quote!(let _ = __needs;));
    let await_provide = provide.sig.asyncness.map(|_| quote!(.await));
    // `<T>::provide` finds the inherent method before the trait's. (`located_at`: `self`
    // must keep this expansion's hygiene.)
    let at = Span::call_site().located_at(provide.sig.ident.span());
    let call = quote_spanned!(at=> <#self_ty>::provide(self, #(#pass),*) #await_provide);
    let pack = emit::pack_provided(root, &output, call, &provider_emit::convert(root));
    let provide_body = quote!(#unused #fetch #pack);
    let dispose_body = dispose.map(|dispose| {
        let provided: Vec<_> = declared
            .provides
            .iter()
            .zip(&dispose.values)
            .map(|((key, ty), value)| (*key, *ty, value.pass))
            .collect();
        let (fetch, pass) = provider_emit::fetch_provided(root, &name_text, &provided);
        // A provided value that does not fit its parameter is reported at the parameter.
        let pass = pass
            .into_iter()
            .zip(&dispose.params)
            .map(|(arg, param)| emit::located_at(arg, param.span()));
        let await_dispose = dispose.method.sig.asyncness.map(|_| quote!(.await));
        let at = Span::call_site().located_at(dispose.method.sig.ident.span());
        let call = quote_spanned!(at=> <#self_ty>::dispose(self, #(#pass),*) #await_dispose);
        quote! {
            #fetch
            #root::DisposeOutput::into_dispose_result(#call)
        }
    });
    let provider_impl = provider_emit::provider_impl(
        &quote!(#self_ty),
        &declared,
        provide_body,
        dispose_body,
        args.timeout,
    );
    // The checks sit outside the impl, where `Self` means nothing.
    let checked: Vec<Type> = output
        .values
        .iter()
        .chain(needed.iter().map(|n| &n.ty))
        .map(|ty| {
            syn::parse2(types::replace_self(quote!(#ty), self_ty)).unwrap_or_else(|_| ty.clone())
        })
        .collect();
    let checks = emit::checks(root, &checked, &[], None, &[]);
    let registration = discover.then(|| {
        let made = match new {
            Some(_) => quote!(<#self_ty>::new()),
            None => {
                let at = Span::call_site().located_at(self_ty.span());
                let private = root.at(at);
                quote_spanned!(at=> <#self_ty as #private::Discoverable>::made())
            }
        };
        provider_emit::registration(root, &name_text, FnKind::Provider, made)
    });
    let register = match new {
        Some(_) => format!(".provider({name_text}::new())"),
        None if discover => format!(".provider({name_text}::default())"),
        None => format!(".provider({name_text} {{ .. }})"),
    };
    let declared_keys = emit::declared_keys(&declared, FnKind::Provider, &register);
    let cfgs = emit::cfgs(&item.attrs);
    let item = allow_ptr_arg(item.clone());
    Ok(quote! {
        #item

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

/// An inherent `dispose` whose parameters after `&self` are all valid.
struct DisposeMethod<'a> {
    method: &'a ImplItemFn,
    params: Vec<&'a FnArg>,
    values: Vec<ValueParam>,
}

const GENERIC_IMPL: &str =
    "a provider impl cannot be generic: the graph needs one concrete type per key";

/// The block with `#[allow(clippy::ptr_arg)]` on `provide` and `dispose`, whose `&String`
/// parameters are right: their types are the keys' types.
fn allow_ptr_arg(mut item: ItemImpl) -> ItemImpl {
    for entry in &mut item.items {
        if let ImplItem::Fn(f) = entry
            && (f.sig.ident == "provide" || f.sig.ident == "dispose")
        {
            f.attrs.push(syn::parse_quote!(#[allow(clippy::ptr_arg)]));
        }
    }
    item
}

fn method<'a>(item: &'a ItemImpl, name: &str) -> Option<&'a ImplItemFn> {
    item.items.iter().find_map(|i| match i {
        ImplItem::Fn(f) if f.sig.ident == name => Some(f),
        _ => None,
    })
}

/// The parameters after `&self`; an error (and `None`) if the method does not take `&self` or
/// is generic.
fn after_self<'a>(sig: &'a Signature, errors: &mut Errors) -> Option<Vec<&'a FnArg>> {
    let ident = &sig.ident;
    if !sig.generics.params.is_empty() {
        errors.spanned(&sig.generics, format!("`{ident}` cannot be generic"));
        return None;
    }
    match sig.inputs.first() {
        Some(FnArg::Receiver(receiver)) if takes_shared_self(receiver) => {
            Some(sig.inputs.iter().skip(1).collect())
        }
        Some(FnArg::Receiver(receiver)) => {
            errors.spanned(
                receiver,
                format!("`{ident}` must take `&self`: the provider is shared by every task"),
            );
            None
        }
        _ => {
            errors.spanned(
                ident,
                format!(
                    "`{ident}` must take `&self` first, then {}",
                    what_follows(ident)
                ),
            );
            None
        }
    }
}

/// `&self` or `self: &Self`.
fn takes_shared_self(receiver: &Receiver) -> bool {
    matches!(&*receiver.ty, Type::Reference(r) if r.mutability.is_none())
}

fn what_follows(ident: &syn::Ident) -> &'static str {
    if ident == "dispose" {
        "nothing or every provided value in order"
    } else {
        "its needs"
    }
}
