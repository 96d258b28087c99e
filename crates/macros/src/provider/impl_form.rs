//! `#[provider]` on an `impl` block: the block stays as written, and a `Provider` impl
//! delegates to its `provide` (and `dispose`, and `build_timeout`) methods. Registering the
//! struct takes any value of it; only discovery makes one, with `fn new()` or `Default`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ImplItemFn, ItemImpl, Receiver, ReturnType, Signature, Type};

use super::attr::Args;
use super::emit::{self as provider_emit, BuildTimeout};
use super::signature;
use crate::emit::{self, Declared, FnKind};
use crate::errors::Errors;
use crate::root::Root;
use crate::types::{self, NeedParam, Returns, ValueParam, plural};

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
    let mut provide_params = None;
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
            provide_params = params;
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
    let build_timeout = method(&item, "build_timeout").and_then(|method| {
        build_timeout_method(
            method,
            args.as_ref().and_then(|a| a.timeout_written.as_ref()),
            provide_params.as_deref().zip(needed.as_deref()),
            &mut errors,
        )
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
    let timeout = match build_timeout {
        Some(build_timeout) => Some(timeout_body(root, self_ty, build_timeout, &needed)),
        None => args.timeout.map(BuildTimeout::Millis),
    };
    let provider_impl = provider_emit::provider_impl(
        &quote!(#self_ty),
        &declared,
        provide_body,
        dispose_body,
        timeout,
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

/// An inherent `build_timeout`, valid: it takes `provide`'s needs, or none.
struct BuildTimeoutMethod<'a> {
    method: &'a ImplItemFn,
    params: Vec<&'a FnArg>,
}

/// What a `build_timeout` that takes other parameters is told.
const SAME_NEEDS: &str = "`build_timeout` takes the same needs as `provide` (the same \
                          parameter types, in the same order), or none after `&self`";

/// Validates the block's `build_timeout`: a plain (not async) method that takes `&self` and
/// then `provide`'s needs (`provide`: its parameters after `&self`, and what they receive,
/// when both were valid) or none, in a provider without `timeout = ...` (`timeout`, as
/// written). `None` after recording an error for each problem.
fn build_timeout_method<'a>(
    method: &'a ImplItemFn,
    timeout: Option<&syn::MetaNameValue>,
    provide: Option<(&[&FnArg], &[NeedParam])>,
    errors: &mut Errors,
) -> Option<BuildTimeoutMethod<'a>> {
    let sig = &method.sig;
    let before = errors.count();
    if let Some(timeout) = timeout {
        errors.spanned(
            timeout,
            "`timeout = ...` and `fn build_timeout` both set this provider's build timeout; \
             keep one",
        );
    }
    if let Some(asyncness) = &sig.asyncness {
        errors.spanned(
            asyncness,
            "`build_timeout` cannot be async: it is asked before each build, once its needs are \
             built; make it a plain `fn` that returns a `Duration`",
        );
    }
    if let ReturnType::Default = sig.output {
        errors.spanned(
            &sig.ident,
            "`build_timeout` returns how long one build of this provider may take: add \
             `-> std::time::Duration`",
        );
    }
    let params = after_self(sig, errors)?;
    if let (false, Some((provide_params, needed))) = (params.is_empty(), provide) {
        same_needs(&params, provide_params, needed, errors);
    }
    (errors.count() == before).then_some(BuildTimeoutMethod { method, params })
}

/// Records an error unless `params` (`build_timeout`'s after `&self`) are `provide`'s
/// (`provide_params`, which receive `needed`) one for one: as many, each of the same type.
fn same_needs(
    params: &[&FnArg],
    provide_params: &[&FnArg],
    needed: &[NeedParam],
    errors: &mut Errors,
) {
    if params.len() != provide_params.len() {
        errors.spanned(
            quote!(#(#params),*),
            format!(
                "`build_timeout` takes {} after `&self`, and `provide` takes {}: {SAME_NEEDS}",
                plural(params.len(), "parameter"),
                plural(provide_params.len(), "parameter"),
            ),
        );
        return;
    }
    for ((param, provide_param), need) in params.iter().zip(provide_params).zip(needed) {
        let (FnArg::Typed(param), FnArg::Typed(provide_param)) = (param, provide_param) else {
            // A `self` after the first parameter is not Rust: the compiler says so.
            continue;
        };
        let same = types::need_param(&param.ty, "a `build_timeout` parameter")
            .is_ok_and(|p| p.receive == need.receive && tokens(&p.ty) == tokens(&need.ty));
        if !same {
            errors.spanned(
                &param.ty,
                format!(
                    "`build_timeout` takes `{}` here, where `provide` takes `{}`: {SAME_NEEDS}",
                    written(&param.ty),
                    written(&provide_param.ty),
                ),
            );
        }
    }
}

/// The body of the `Provider` method that calls the block's `build_timeout`: `build_timeout`
/// itself for one that takes nothing after `&self`, else `build_timeout_for`, which reads
/// `provide`'s needs (`needed`) from `__needs` as `provide` does. A need it cannot read (none
/// is missing once `build()` checked the graph) leaves the app's timeout.
fn timeout_body(
    root: Root,
    self_ty: &Type,
    build_timeout: BuildTimeoutMethod<'_>,
    needed: &[NeedParam],
) -> BuildTimeout {
    let takes_needs = !build_timeout.params.is_empty();
    let (fetch, pass) = if takes_needs {
        emit::fetch_needs(root, needed, &quote!(.ok()))
    } else {
        (TokenStream::new(), Vec::new())
    };
    // `<T>::build_timeout` finds the inherent method before the trait's. A return type that is
    // not a `Duration` is reported there (`located_at`: `self` must keep this expansion's
    // hygiene).
    let at = match &build_timeout.method.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => build_timeout.method.sig.ident.span(),
    };
    let at = Span::call_site().located_at(at);
    let body = quote_spanned! {at=>
        let __timeout: ::std::time::Duration = <#self_ty>::build_timeout(self, #(#pass),*);
        ::std::option::Option::Some(__timeout)
    };
    if takes_needs {
        BuildTimeout::ForNeeds(quote!(#fetch #body))
    } else {
        BuildTimeout::Fixed(body)
    }
}

/// `ty` as text, without the spaces between its tokens that no one writes.
fn written(ty: &Type) -> String {
    let spaced = tokens(ty);
    let mut text = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    while let Some(c) = chars.next() {
        let between_words =
            text.chars().next_back().is_some_and(word) && chars.peek().copied().is_some_and(word);
        if c != ' ' || between_words {
            text.push(c);
        }
    }
    text
}

/// `ty`'s tokens as text, spaced as `quote` spaces them.
fn tokens(ty: &Type) -> String {
    quote!(#ty).to_string()
}

const GENERIC_IMPL: &str =
    "a provider impl cannot be generic: the graph needs one concrete type per key";

/// The block with `#[allow(clippy::ptr_arg)]` on `provide`, `dispose` and `build_timeout`,
/// whose `&String` parameters are right: their types are the keys' types.
fn allow_ptr_arg(mut item: ItemImpl) -> ItemImpl {
    for entry in &mut item.items {
        if let ImplItem::Fn(f) = entry
            && ["provide", "dispose", "build_timeout"]
                .iter()
                .any(|name| f.sig.ident == name)
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
    } else if ident == "build_timeout" {
        "nothing or the same needs as `provide`"
    } else {
        "its needs"
    }
}
