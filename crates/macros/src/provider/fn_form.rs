//! `#[provider]` on a `fn`: the fn stays as written, and a companion type of the same
//! name implements `Provider` by calling it. A `#[decorator]` fn expands the same way, once
//! validated (see `decorator`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, LitStr, Path};

use super::attr::Args;
use super::emit::{self as provider_emit, BuildTimeout};
use super::signature;
use crate::emit::{self, Declared, FnKind};
use crate::errors::Errors;
use crate::root::Root;
use crate::types::{self, NeedParam, Output, Pass, Returns};

/// A provider or decorator fn, validated: what its companion provides and needs.
pub(crate) struct ValidFn<'a> {
    /// The fn, as written.
    pub(crate) item: &'a ItemFn,
    /// A provider's, or a decorator's.
    pub(crate) kind: FnKind,
    /// The keys provided, in order.
    pub(crate) provides: Vec<LitStr>,
    /// The keys needed, one per parameter, in order.
    pub(crate) needs: Vec<LitStr>,
    /// What each parameter receives.
    pub(crate) needed: Vec<NeedParam>,
    /// What the fn returns.
    pub(crate) output: Output,
    /// The declarations it comes after (in its lists, or among its key's decorators).
    pub(crate) after: Vec<LitStr>,
    /// The conditions it is on under, all of which must hold.
    pub(crate) when: Vec<LitStr>,
    /// `dispose = path`.
    pub(crate) dispose: Option<&'a Path>,
    /// How long one build may take, in milliseconds (`timeout = "5s"`); `None`: the app's.
    pub(crate) timeout: Option<u64>,
    /// Whether `discover()` finds it.
    pub(crate) discover: bool,
}

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
    let needed = signature::need_params(&sig.inputs, "a provider parameter", &mut errors);
    if let (Some(args), Some(needed)) = (&args, &needed) {
        let params: Vec<&FnArg> = sig.inputs.iter().collect();
        if types::check_need_count(
            &sig.ident,
            &params,
            &args.needs,
            ("parameter", ""),
            &mut errors,
        ) {
            types::check_need_shapes(&params, needed, &args.needs, &mut errors);
        }
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
    Ok(expand_valid(
        root,
        ValidFn {
            item: &item,
            kind: FnKind::Provider,
            provides: args.provides,
            needs: args.needs,
            needed,
            output,
            after: args.after,
            when: args.when,
            dispose: args.dispose.as_ref().map(|d| &d.path),
            timeout: args.timeout,
            discover: args.discover,
        },
    ))
}

/// The fn, its companion, the companion's `Provider` impl, the checks of its types, its
/// registration for `discover()` and (for a provider) its declared keys.
pub(crate) fn expand_valid(root: Root, valid: ValidFn<'_>) -> TokenStream {
    let ValidFn {
        item,
        kind,
        provides,
        needs,
        needed,
        output,
        after,
        when,
        dispose,
        timeout,
        discover,
    } = &valid;
    let sig = &item.sig;
    let name = &sig.ident;
    let name_text = name.to_string();
    let declared = Declared::new(
        root,
        &name_text,
        name.span(),
        (provides, output),
        (needs, needed),
    )
    .after(after)
    .when(when);
    let (fetch, pass) = emit::fetch_needs(root, needed, &TokenStream::new());
    let unused = needed.is_empty().then(|| quote!(let _ = __needs;));
    let await_call = sig.asyncness.map(|_| quote!(.await));
    let pack = emit::pack_provided(
        root,
        output,
        quote!(#name(#(#pass),*) #await_call),
        &provider_emit::convert(root),
    );
    let provide_body = quote!(#unused #fetch #pack);
    let dispose_body = dispose.map(|path| {
        let provided: Vec<_> = declared
            .provides
            .iter()
            .map(|(key, ty)| (*key, *ty, Pass::Ref))
            .collect();
        let (fetch, pass) = provider_emit::fetch_provided(root, &name_text, &provided);
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
    let (companion, self_ty) = emit::companion(&item.vis, name, &cfgs, *kind);
    let provider_impl = provider_emit::provider_impl(
        &self_ty,
        &declared,
        provide_body,
        dispose_body,
        timeout.map(BuildTimeout::Millis),
    );
    // A decorator's first need has the type it returns (`decorator` checks that): checked
    // once, as the returned value.
    let decorated = usize::from(*kind == FnKind::Decorator);
    let checked: Vec<_> = output
        .values
        .iter()
        .chain(needed.iter().skip(decorated).map(|n| &n.ty))
        .cloned()
        .collect();
    let checks = emit::checks(root, &checked, &[], None, &[]);
    let word = kind.word();
    let constructor = syn::Ident::new(word, Span::call_site());
    let registration = discover.then(|| {
        provider_emit::registration(root, &name_text, *kind, quote!(#self_ty::#constructor()))
    });
    // A decorator provides no key of its own: a missing key is its provider's to name.
    let declared_keys = match kind {
        FnKind::Decorator => TokenStream::new(),
        _ => {
            let register = format!(".{word}({name_text}::{word}())");
            emit::declared_keys(&declared, *kind, &register)
        }
    };

    quote! {
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
    }
}

const GENERIC: &str = "a provider fn cannot be generic: the graph needs one concrete type per key";
